//! `shax engine`: a line protocol on stdin/stdout in the UCI dialect that the
//! Sanmill mill engine speaks.
//!
//! Every input line gets its answer before the next is read. Bad input gets
//! one line `info string error: <what>`, and the engine state stays exactly as
//! it was: nothing on the input makes the engine panic or exit, except `quit`
//! and the end of input.

use std::io::{self, BufRead, Write};
use std::time::{Duration, Instant};

use shax_core::{Color, Game, Position, Rules, perft};
use shax_search::{Limits, Player, Registry, mix_seed};

/// The player `go` uses until `setoption name Player` names another.
const DEFAULT_PLAYER: &str = "alphabeta:depth=4";

/// The engine's state: the rules, the current game and the player that `go` asks.
pub struct Engine {
    rules: Rules,
    game: Game,
    registry: Registry,
    player: Box<dyn Player>,
    /// `go` commands answered, mixed into each decision's seed.
    searches: u64,
}

/// What the caller does after a line.
#[derive(Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Quit,
}

type Reply = Result<Vec<String>, String>;

impl Engine {
    pub fn new() -> Engine {
        let rules = Rules::default();
        let registry = crate::cmd::players::registry(rules);
        let player = registry
            .build_str(DEFAULT_PLAYER)
            .expect("the default player builds");
        Engine {
            rules,
            game: Game::new(rules),
            registry,
            player,
            searches: 0,
        }
    }

    /// Handles one input line, returning the output lines and whether to go on.
    pub fn handle(&mut self, line: &str) -> (Vec<String>, Flow) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&cmd, rest)) = words.split_first() else {
            return (Vec::new(), Flow::Continue);
        };
        let reply = match cmd {
            "quit" => return (Vec::new(), Flow::Quit),
            "uci" => Ok(vec![
                format!("id name shax {}", env!("CARGO_PKG_VERSION")),
                "id author the shax developers".to_string(),
                "option name Rules type string default shax".to_string(),
                format!("option name Player type string default {DEFAULT_PLAYER}"),
                "option name Tier type string default <empty>".to_string(),
                "uciok".to_string(),
            ]),
            "isready" => Ok(vec!["readyok".to_string()]),
            "ucinewgame" => {
                self.game = Game::new(self.rules);
                self.player.reset();
                Ok(Vec::new())
            }
            "go" => self.go(rest),
            "setoption" => self.setoption(rest),
            "position" => self.position(rest),
            "legal" => Ok(vec![self.legal_line()]),
            "status" => Ok(vec![self.status_line()]),
            "d" => Ok(self.display()),
            "perft" => self.perft(rest),
            other => Err(format!("unknown command '{other}'")),
        };
        let lines = reply.unwrap_or_else(|e| vec![format!("info string error: {e}")]);
        (lines, Flow::Continue)
    }

    fn setoption(&mut self, rest: &[&str]) -> Reply {
        // setoption name <id...> [value <x...>]
        let Some(("name", rest)) = rest.split_first().map(|(a, b)| (*a, b)) else {
            return Err("setoption: expected 'setoption name <option> value <value>'".to_string());
        };
        let split = rest.iter().position(|w| *w == "value");
        let (name, value) = match split {
            Some(i) => (rest[..i].join(" "), rest[i + 1..].join(" ")),
            None => (rest.join(" "), String::new()),
        };
        match name.to_ascii_lowercase().as_str() {
            "rules" => {
                if value.is_empty() {
                    return Err(
                        "setoption Rules: missing value (a preset name or a rules TOML path)"
                            .to_string(),
                    );
                }
                let rules = Rules::load(&value).map_err(|e| format!("setoption Rules: {e}"))?;
                // The player is rebuilt for the new rules (a network player
                // must have been trained for them); on failure nothing changes.
                let registry = crate::cmd::players::registry(rules);
                let player = registry.build_str(&self.player.spec()).map_err(|e| {
                    format!("setoption Rules: the player cannot play these rules: {e}")
                })?;
                self.rules = rules;
                self.game = Game::new(rules);
                self.registry = registry;
                self.player = player;
                Ok(Vec::new())
            }
            "player" => {
                if value.is_empty() {
                    return Err(
                        "setoption Player: missing value (a player spec such as alphabeta:depth=4)"
                            .to_string(),
                    );
                }
                self.player = self
                    .registry
                    .build_str(&value)
                    .map_err(|e| format!("setoption Player: {e}"))?;
                Ok(Vec::new())
            }
            "tier" => {
                if value.is_empty() {
                    return Err(format!(
                        "setoption Tier: missing value ({})",
                        shax_bot::TIERS.join(", ")
                    ));
                }
                self.player = self
                    .registry
                    .build_str(&format!("tier:{value}"))
                    .map_err(|e| format!("setoption Tier: {e}"))?;
                Ok(Vec::new())
            }
            "" => Err("setoption: missing option name".to_string()),
            _ => Err(format!(
                "setoption: unknown option '{name}' (options: Rules, Player, Tier)"
            )),
        }
    }

    fn position(&mut self, rest: &[&str]) -> Reply {
        let moves_at = rest.iter().position(|w| *w == "moves");
        let (setup, moves) = match moves_at {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, &[][..]),
        };
        let start = match setup.split_first() {
            Some((&"startpos", [])) => Position::new(self.rules),
            Some((&"startpos", extra)) => {
                return Err(format!(
                    "position: unexpected '{}' after startpos",
                    extra.join(" ")
                ));
            }
            Some((&"fen", fields)) => Position::from_fen(self.rules, &fields.join(" "))
                .map_err(|e| format!("position: {e}"))?,
            Some((other, _)) => {
                return Err(format!(
                    "position: expected startpos or fen, found '{other}'"
                ));
            }
            None => return Err("position: expected startpos or fen".to_string()),
        };
        let mut game = Game::from_position(start);
        for (i, m) in moves.iter().enumerate() {
            game.play_str(m)
                .map_err(|e| format!("position: action {} '{m}': {e}", i + 1))?;
        }
        self.game = game;
        Ok(Vec::new())
    }

    /// `go [depth N] [nodes N] [movetime MS] [wtime MS btime MS [winc MS] [binc MS]
    /// [movestogo N]]`: the player's choice for the current position (a removal
    /// when one is owed), after an `info` line. `depth`, `nodes` and
    /// `movetime` replace the player's own budget; a clock does not: it caps
    /// the search at the side to act's share of its time ([`Clock::budget`]),
    /// so a tier keeps its strength and never loses on time.
    fn go(&mut self, rest: &[&str]) -> Reply {
        let mut limits = Limits::NONE;
        let mut clock = Clock::default();
        let mut words = rest.iter();
        while let Some(&w) = words.next() {
            let (min, max, what) = match w {
                "depth" => (1, 64, "depth"),
                "nodes" => (1, 1_000_000_000, "nodes"),
                "movetime" => (1, 3_600_000, "movetime"),
                "wtime" | "btime" | "winc" | "binc" => (0, u32::MAX as u64, w),
                "movestogo" => (1, 1000, "movestogo"),
                other => {
                    return Err(format!(
                        "go: unknown limit '{other}' (limits: depth N, nodes N, movetime MS, \
                         wtime MS, btime MS, winc MS, binc MS, movestogo N)"
                    ));
                }
            };
            let n = words
                .next()
                .and_then(|v| v.parse::<u64>().ok())
                .filter(|&n| (min..=max).contains(&n))
                .ok_or_else(|| format!("go: {what} needs a number from {min} to {max}"))?;
            match what {
                "depth" => limits.depth = Some(n as u32),
                "nodes" => limits.nodes = Some(n),
                "movetime" => limits.movetime = Some(Duration::from_millis(n)),
                "wtime" => clock.time[0] = Some(n),
                "btime" => clock.time[1] = Some(n),
                "winc" => clock.inc[0] = n,
                "binc" => clock.inc[1] = n,
                _ => clock.moves_to_go = Some(n),
            }
        }
        if let Some(budget) = clock.budget(self.game.position().to_act()) {
            limits.cutoff = Some(Instant::now() + budget);
        }
        if let Some(o) = self.game.outcome() {
            return Err(format!("go: the game is over ({o})"));
        }
        self.searches += 1;
        let seed = mix_seed(self.searches, self.game.len() as u64);
        let action = self
            .player
            .choose_in_game(&self.game, &limits, seed)
            .ok_or_else(|| "go: the player found no action".to_string())?;
        let mut out = Vec::new();
        if let Some(i) = self.player.info() {
            out.push(format!(
                "info depth {} score {} nodes {} pv {}",
                i.depth, i.score, i.nodes, action
            ));
        }
        out.push(format!("bestmove {action}"));
        Ok(out)
    }

    fn legal_line(&self) -> String {
        let mut actions: Vec<String> = self
            .game
            .legal_actions()
            .iter()
            .map(|a| a.to_string())
            .collect();
        actions.sort();
        let mut line = "legal".to_string();
        for a in actions {
            line.push(' ');
            line.push_str(&a);
        }
        line
    }

    fn status_line(&self) -> String {
        match self.game.outcome() {
            Some(o) => format!("status over {o}"),
            None => format!("status ongoing to-act {}", self.game.position().to_act()),
        }
    }

    fn display(&self) -> Vec<String> {
        let pos = self.game.position();
        let mut out: Vec<String> = pos.diagram().lines().map(str::to_string).collect();
        out.push(format!("rules: {}", self.rules));
        out.push(format!(
            "in hand: white {} black {}; to act: {} ({})",
            pos.hand(shax_core::Color::White),
            pos.hand(shax_core::Color::Black),
            pos.to_act(),
            pos.task().name()
        ));
        out.push(format!("fen: {}", pos.fen()));
        out.push(self.status_line());
        out
    }

    fn perft(&self, rest: &[&str]) -> Reply {
        let depth = match rest {
            [d] => d.parse::<u32>().ok().filter(|&d| d <= 64),
            _ => None,
        }
        .ok_or_else(|| {
            format!(
                "perft: expected 'perft <depth>' with depth 0 to 64, found '{}'",
                rest.join(" ")
            )
        })?;
        // The engine's game history is not part of perft: it counts from the
        // current position as a fresh start.
        let n = if self.game.outcome().is_some() && depth > 0 {
            0
        } else {
            perft(self.game.position(), depth, shax_core::Depth::Plies)
        };
        Ok(vec![format!("perft {depth} {n}")])
    }
}

/// Runs the protocol on stdin and stdout until `quit` or the end of input.
pub fn run_stdio() -> anyhow::Result<()> {
    let stdin = io::stdin();
    let mut stdout = io::stdout().lock();
    let mut engine = Engine::new();
    for line in stdin.lock().lines() {
        let line = match line {
            Ok(l) => l,
            // Not UTF-8: answer and go on, like any other bad line.
            Err(e) if e.kind() == io::ErrorKind::InvalidData => {
                writeln!(stdout, "info string error: input line is not UTF-8")?;
                stdout.flush()?;
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        let (lines, flow) = engine.handle(&line);
        for l in lines {
            writeln!(stdout, "{l}")?;
        }
        stdout.flush()?;
        if flow == Flow::Quit {
            break;
        }
    }
    Ok(())
}

/// A `go` command's clock: each side's remaining time and increment in
/// milliseconds (White first), and the moves to the next time control.
#[derive(Debug, Default)]
struct Clock {
    time: [Option<u64>; 2],
    inc: [u64; 2],
    moves_to_go: Option<u64>,
}

/// Moves a game is assumed to have left when `movestogo` is not given.
const MOVES_LEFT: u64 = 30;
/// Kept back from every budget for the answer's way to the interface.
const MARGIN_MS: u64 = 20;

impl Clock {
    /// How long `side` may think: an even share of its time over the moves
    /// to go (`MOVES_LEFT` without a time control) plus three quarters of its
    /// increment, never more than half of what it has left, less a margin
    /// for the answer's way back; at least 1 ms. `None` without its time.
    fn budget(&self, side: Color) -> Option<Duration> {
        let i = side.index();
        let left = self.time[i]?;
        let share = left / self.moves_to_go.unwrap_or(MOVES_LEFT) + self.inc[i] * 3 / 4;
        let ms = share.min(left / 2).saturating_sub(MARGIN_MS).max(1);
        Some(Duration::from_millis(ms))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn say(e: &mut Engine, line: &str) -> Vec<String> {
        e.handle(line).0
    }

    #[test]
    fn handshake() {
        let mut e = Engine::new();
        let out = say(&mut e, "uci");
        assert!(out[0].starts_with("id name shax "));
        assert_eq!(out.last().unwrap(), "uciok");
        assert_eq!(say(&mut e, "isready"), ["readyok"]);
        assert_eq!(e.handle("quit").1, Flow::Quit);
    }

    #[test]
    fn bad_input_leaves_the_position_unchanged() {
        let mut e = Engine::new();
        assert!(say(&mut e, "position startpos moves d7 a1").is_empty());
        let before = say(&mut e, "d");
        for bad in [
            "position startpos moves d7 d7",
            "position startpos moves d7 a1-a4",
            "position startpos moves d4",
            "position fen nonsense",
            "position sideways",
            "setoption name Rules value chess",
            "setoption name Colour value red",
            "frobnicate",
            "perft x",
            "perft 65",
        ] {
            let out = say(&mut e, bad);
            assert_eq!(out.len(), 1, "{bad}: {out:?}");
            assert!(out[0].starts_with("info string error: "), "{bad}: {out:?}");
            assert_eq!(say(&mut e, "d"), before, "{bad} changed the position");
        }
    }

    #[test]
    fn go_answers_a_legal_bestmove_with_every_player() {
        let mut e = Engine::new();
        for spec in ["random", "greedy", "alphabeta:depth=2", "mcts:sims=50"] {
            assert!(say(&mut e, &format!("setoption name Player value {spec}")).is_empty());
            for go in [
                "go",
                "go depth 2",
                "go nodes 100",
                "go movetime 20",
                "go depth 1 movetime 50",
                "go wtime 5000 btime 5000 winc 100 binc 100",
                "go wtime 1000 btime 1000 movestogo 10 depth 2",
            ] {
                let out = say(&mut e, go);
                let best = out
                    .last()
                    .unwrap()
                    .strip_prefix("bestmove ")
                    .expect("bestmove");
                let legal = say(&mut e, "legal")[0].clone();
                assert!(
                    legal.split(' ').skip(1).any(|a| a == best),
                    "{spec} {go}: {best}"
                );
            }
        }
    }

    #[test]
    fn a_clock_gives_the_side_to_act_its_share() {
        let ms = |c: &Clock, side| c.budget(side).map(|d| d.as_millis());
        let mut c = Clock {
            time: [Some(60_000), Some(1_000)],
            ..Clock::default()
        };
        // A thirtieth of the time left, less the margin.
        assert_eq!(ms(&c, Color::White), Some(1_980));
        assert_eq!(ms(&c, Color::Black), Some(13));
        // Three quarters of the increment on top.
        c.inc = [1_000, 0];
        assert_eq!(ms(&c, Color::White), Some(2_730));
        // The moves to the time control share the time; never over half of it.
        c.moves_to_go = Some(1);
        assert_eq!(ms(&c, Color::Black), Some(480));
        // Out of time: still a move, at once.
        c.time = [Some(0), None];
        assert_eq!(ms(&c, Color::White), Some(1));
        assert_eq!(ms(&c, Color::Black), None);
    }

    /// A clock caps a player whose own budget would take far longer: the
    /// answer comes (legal) instead of a search of a billion simulations.
    #[test]
    fn a_clock_caps_the_players_own_budget() {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut e = Engine::new();
            say(&mut e, "setoption name Player value mcts:sims=1000000000");
            say(&mut e, "position startpos moves d2 f2");
            let out = say(&mut e, "go wtime 300 btime 100000 winc 0");
            let legal = say(&mut e, "legal")[0].clone();
            tx.send((out, legal)).ok();
        });
        let (out, legal) = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("go with a clock answers in time");
        let best = out.last().unwrap().strip_prefix("bestmove ").unwrap();
        assert!(legal.split(' ').skip(1).any(|a| a == best), "{best}");
    }

    #[test]
    fn go_removes_when_a_removal_is_owed() {
        let mut e = Engine::new();
        say(&mut e, "setoption name Rules value nine-mens-morris");
        say(&mut e, "position startpos moves a7 a1 d7 d1 g7");
        let out = say(&mut e, "go depth 2");
        let best = out.last().unwrap();
        assert!(best == "bestmove xa1" || best == "bestmove xd1", "{best}");
    }

    #[test]
    fn go_on_a_finished_game_and_bad_specs_are_errors() {
        let mut e = Engine::new();
        say(
            &mut e,
            "position fen WW./.../.../....WW/.../BB./B.. w - 0,0 w -,- 0 0 30 moves g4-g7 xb2",
        );
        assert!(say(&mut e, "status")[0].starts_with("status over"));
        let out = say(&mut e, "go");
        assert_eq!(out.len(), 1);
        assert!(
            out[0].starts_with("info string error: go: the game is over"),
            "{out:?}"
        );
        say(&mut e, "position startpos");
        for bad in [
            "setoption name Player value alphabeta:depth=0",
            "setoption name Player value chess-engine",
            "setoption name Player value mcts:sims=ten",
            "setoption name Player",
            "go depth 0",
            "go depth",
            "go nodes x",
            "go wtime",
            "go wtime -5",
            "go movestogo 0",
            "go winc soon",
        ] {
            let out = say(&mut e, bad);
            assert_eq!(out.len(), 1, "{bad}: {out:?}");
            assert!(out[0].starts_with("info string error: "), "{bad}: {out:?}");
        }
        let err = &say(&mut e, "setoption name Player value alphabeta:depth=0")[0];
        assert!(err.contains("depth"), "{err}");
        // The player is unchanged by a bad spec: still the default.
        assert!(
            say(&mut e, "go depth 1")
                .last()
                .unwrap()
                .starts_with("bestmove ")
        );
    }

    #[test]
    fn legal_is_one_sorted_line() {
        let mut e = Engine::new();
        let line = &say(&mut e, "legal")[0];
        let words: Vec<&str> = line.split(' ').collect();
        assert_eq!(words[0], "legal");
        assert_eq!(words.len(), 25);
        let mut sorted = words[1..].to_vec();
        sorted.sort();
        assert_eq!(sorted, words[1..]);
    }

    #[test]
    fn status_and_perft() {
        let mut e = Engine::new();
        assert_eq!(say(&mut e, "status"), ["status ongoing to-act white"]);
        say(&mut e, "setoption name Rules value nine-mens-morris");
        assert_eq!(say(&mut e, "perft 2"), ["perft 2 552"]);
        say(&mut e, "position startpos moves a7 a1 d7 d1 g7");
        assert_eq!(say(&mut e, "status"), ["status ongoing to-act white"]);
        assert_eq!(say(&mut e, "legal"), ["legal xa1 xd1"]);
    }
}
