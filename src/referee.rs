//! The referee of `shax match`: engine processes that speak the engine
//! protocol (`uci`, `setoption`, `position`, `go`, `bestmove`), and one game
//! between two of them with every action checked against the rules core's
//! legal list. An engine that answers an illegal action, garbage, an error,
//! nothing in time, or dies, loses that game with the reason stated.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use shax_core::{Action, Color, Game, Rules};

/// How long an engine may take to answer `uci` and `isready` at start.
pub const START_TIMEOUT: Duration = Duration::from_secs(30);

/// One side of a match: the command that starts the engine and its options.
#[derive(Clone, Debug)]
pub struct EngineSpec {
    /// `A` or `B`.
    pub label: String,
    /// The command line, split on whitespace (no shell quoting).
    pub cmd: String,
    /// `setoption name <name> value <value>` sent after the rules.
    pub options: Vec<(String, String)>,
}

/// Why an engine lost a game without the rules deciding it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// It answered an action the referee's legal list does not hold.
    Illegal(String),
    /// It answered something that is not `bestmove <action>`.
    Garbage(String),
    /// It answered `info string error: ...` to the referee.
    EngineError(String),
    /// No `bestmove` within the per-move timeout.
    Timeout(Duration),
    /// Its output closed (it exited or crashed).
    Died,
}

impl Fault {
    /// The short reason written into the game record.
    pub fn reason(&self) -> &'static str {
        match self {
            Fault::Illegal(_) => "illegal-action",
            Fault::Garbage(_) => "garbage",
            Fault::EngineError(_) => "engine-error",
            Fault::Timeout(_) => "timeout",
            Fault::Died => "engine-died",
        }
    }
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fault::Illegal(a) => write!(f, "played the illegal action '{a}'"),
            Fault::Garbage(l) => write!(f, "answered garbage: '{l}'"),
            Fault::EngineError(e) => write!(f, "reported an error: {e}"),
            Fault::Timeout(t) => write!(f, "no bestmove within {} ms", t.as_millis()),
            Fault::Died => write!(f, "died (its output closed)"),
        }
    }
}

/// A running engine process.
pub struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Engine {
    /// Starts the engine, shakes hands (`uci`/`uciok`), sets the rules and the
    /// options and waits for `readyok`.
    ///
    /// # Errors
    ///
    /// A message naming the engine and what failed: the command does not
    /// start, no `uciok` or `readyok` in time, or an option was refused.
    pub fn start(spec: &EngineSpec, rules: &str) -> Result<Engine, String> {
        let who = format!("engine {} ({})", spec.label, spec.cmd);
        let mut words = spec.cmd.split_whitespace();
        let prog = words
            .next()
            .ok_or_else(|| format!("{who}: empty command"))?;
        let mut child = Command::new(prog)
            .args(words)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("{who}: cannot start: {e}"))?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut e = Engine {
            child,
            stdin,
            lines: rx,
        };
        e.handshake(spec, rules)
            .map_err(|f| format!("{who}: {f} while starting"))?;
        Ok(e)
    }

    fn handshake(&mut self, spec: &EngineSpec, rules: &str) -> Result<(), Fault> {
        self.send("uci")?;
        self.expect("uciok", START_TIMEOUT)?;
        self.send(&format!("setoption name Rules value {rules}"))?;
        for (k, v) in &spec.options {
            self.send(&format!("setoption name {k} value {v}"))?;
        }
        self.send("isready")?;
        self.expect("readyok", START_TIMEOUT)?;
        Ok(())
    }

    fn send(&mut self, line: &str) -> Result<(), Fault> {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|_| Fault::Died)
    }

    /// Waits for a line equal to `want` or starting with `want ` and returns
    /// it; an `info string error:` line before it is a fault, other lines are
    /// skipped.
    fn expect(&mut self, want: &str, timeout: Duration) -> Result<String, Fault> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(l) => l,
                Err(RecvTimeoutError::Timeout) => return Err(Fault::Timeout(timeout)),
                Err(RecvTimeoutError::Disconnected) => return Err(Fault::Died),
            };
            let line = line.trim();
            if let Some(e) = line.strip_prefix("info string error:") {
                return Err(Fault::EngineError(e.trim().to_string()));
            }
            if line == want || line.starts_with(&format!("{want} ")) {
                return Ok(line.to_string());
            }
        }
    }

    /// A new game: `ucinewgame`.
    pub fn new_game(&mut self) -> Result<(), Fault> {
        self.send("ucinewgame")
    }

    /// Asks for the action after `moves` (from the start position) with the
    /// `go` arguments `go`; returns the answered text, unchecked.
    pub fn ask(&mut self, moves: &[String], go: &str, timeout: Duration) -> Result<String, Fault> {
        let mut pos = "position startpos".to_string();
        if !moves.is_empty() {
            pos.push_str(" moves ");
            pos.push_str(&moves.join(" "));
        }
        self.send(&pos)?;
        self.send(go.trim())?;
        let line = self.expect("bestmove", timeout)?;
        let mut words = line.split_whitespace().skip(1);
        match (words.next(), words.next()) {
            (Some(a), None) => Ok(a.to_string()),
            _ => Err(Fault::Garbage(line)),
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// How a refereed game ended.
#[derive(Debug)]
pub struct Refereed {
    /// The game (opening included) as far as it went.
    pub game: Game,
    /// The engine at fault and what it did, when an engine lost by a fault.
    pub fault: Option<(Color, Fault)>,
    /// White's and Black's thinking times: (decisions, total seconds, longest).
    pub think: [(u64, f64, f64); 2],
}

/// Plays one game between `white` and `black` after `opening`; each decision
/// gets `go` and must answer within `timeout`.
pub fn referee_game(
    rules: Rules,
    opening: &[Action],
    white: &mut Engine,
    black: &mut Engine,
    go: &str,
    timeout: Duration,
) -> Refereed {
    let mut game = Game::new(rules);
    for &a in opening {
        if game.outcome().is_some() {
            break;
        }
        game.play(a).expect("openings are legal");
    }
    let mut moves: Vec<String> = game.actions().iter().map(|a| a.to_string()).collect();
    let mut think = [(0u64, 0.0f64, 0.0f64); 2];
    let mut fault = None;
    if let Err(f) = white.new_game() {
        fault = Some((Color::White, f));
    } else if let Err(f) = black.new_game() {
        fault = Some((Color::Black, f));
    }
    while fault.is_none() && game.outcome().is_none() {
        let side = game.position().to_act();
        let engine = if side == Color::White {
            &mut *white
        } else {
            &mut *black
        };
        let t = Instant::now();
        let answer = engine.ask(&moves, go, timeout);
        let secs = t.elapsed().as_secs_f64();
        let th = &mut think[side.index()];
        *th = (th.0 + 1, th.1 + secs, th.2.max(secs));
        match answer.and_then(|text| check(&game, text)) {
            Ok(a) => {
                game.play(a).expect("checked against the legal list");
                moves.push(a.to_string());
            }
            Err(f) => fault = Some((side, f)),
        }
    }
    Refereed { game, fault, think }
}

/// The answered text as one of the referee's legal actions.
fn check(game: &Game, text: String) -> Result<Action, Fault> {
    let a: Action = text.parse().map_err(|_| Fault::Garbage(text.clone()))?;
    if game.legal_actions().contains(&a) {
        Ok(a)
    } else {
        Err(Fault::Illegal(text))
    }
}
