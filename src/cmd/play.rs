//! `shax play`: a game in the terminal against a tier or any player.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use anyhow::Context as _;
use shax_core::{Color, Game, PlayError, Rules, Task};
use shax_search::{Limits, Player, history_of, mix_seed};
use shax_train::{GameRecord, write_records};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Rules: a preset or a rules TOML file.
    #[arg(long, default_value = "shax")]
    rules: String,
    /// The opponent's difficulty tier: beginner, easy, medium, hard, master.
    #[arg(long, conflicts_with = "opponent")]
    tier: Option<String>,
    /// The opponent as any player spec (alphabeta:depth=4, net:<file>,sims=64, ...).
    #[arg(long)]
    opponent: Option<String>,
    /// Your colour.
    #[arg(long = "as", value_parser = ["white", "black"], default_value = "white")]
    color: String,
    /// Where to save the game record (JSON line); default runs/play-<UTC time>-<pid>.jsonl.
    #[arg(long)]
    record: Option<PathBuf>,
    /// Seed of the opponent's decisions.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

const HELP: &str = "Actions: place 'd7', move 'a1-a4', remove 'xg7'. \
Commands: 'moves' lists your legal actions, 'undo' takes back your last turn, \
'board' draws the board again, 'help', 'quit' (the game is saved).";

pub fn run(a: Args) -> anyhow::Result<()> {
    let rules = Rules::load(&a.rules)?;
    let spec = match (&a.tier, &a.opponent) {
        (Some(t), _) => format!("tier:{t}"),
        (None, Some(o)) => o.clone(),
        (None, None) => "tier:medium".to_string(),
    };
    let mut bot = super::players::registry(rules).build_str(&spec)?;
    let human = if a.color == "white" {
        Color::White
    } else {
        Color::Black
    };
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    let game = session(
        rules,
        human,
        bot.as_mut(),
        a.seed,
        &mut stdin.lock(),
        &mut out,
    )?;
    let (white, black) = match human {
        Color::White => ("human".to_string(), spec.clone()),
        Color::Black => (spec.clone(), "human".to_string()),
    };
    let path = match a.record {
        Some(p) => p,
        None => super::arena::default_path("play", "jsonl")?,
    };
    let record = GameRecord::new(&game, 0, &white, &black, a.seed);
    write_records(&path, &[record])
        .with_context(|| format!("saving the game to {}", path.display()))?;
    writeln!(out, "game saved to {}", path.display())?;
    Ok(())
}

fn show(out: &mut impl Write, game: &Game, human: Color) -> std::io::Result<()> {
    let pos = game.position();
    write!(out, "\n{}", pos.diagram())?;
    writeln!(
        out,
        "in hand: white {}, black {}   on board: white {}, black {}",
        pos.hand(Color::White),
        pos.hand(Color::Black),
        pos.board(Color::White).count(),
        pos.board(Color::Black).count()
    )?;
    if let Some(o) = game.outcome() {
        let result = match o.winner {
            Some(w) if w == human => "you win",
            Some(_) => "you lose",
            None => "a draw",
        };
        writeln!(out, "game over: {result} ({o})")?;
    } else {
        let who = if pos.to_act() == human {
            "you"
        } else {
            "the opponent"
        };
        writeln!(
            out,
            "{} to act ({who}): {}",
            pos.to_act(),
            pos.task().name()
        )?;
    }
    Ok(())
}

/// Takes back actions to the start of the human's last turn (the opponent's
/// replies and the removals the turn earned included). Returns how many.
fn undo_turn(game: &mut Game, human: Color) -> usize {
    let mut n = 0;
    while game.undo().is_some() {
        n += 1;
        if game.position().to_act() != human {
            continue;
        }
        // At one of the human's decisions: step back over removals that
        // belonged to the same turn.
        while game.position().task() == Task::Remove {
            match game.undo() {
                Some(_) if game.position().to_act() == human => n += 1,
                Some(b) => {
                    game.play(b).expect("replaying an action just undone");
                    break;
                }
                None => break,
            }
        }
        break;
    }
    n
}

/// Plays one game on `input`/`output`; returns it (finished, or as left at
/// `quit` or the end of input).
pub fn session(
    rules: Rules,
    human: Color,
    bot: &mut dyn Player,
    seed: u64,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> anyhow::Result<Game> {
    let mut game = Game::new(rules);
    writeln!(
        out,
        "shax play: {} as {human} against {}. {HELP}",
        rules,
        bot.spec()
    )?;
    show(out, &game, human)?;
    let mut line = String::new();
    while game.outcome().is_none() {
        if game.position().to_act() != human {
            let s = mix_seed(seed, game.len() as u64);
            let Some(a) = bot.choose(game.position(), &history_of(&game), &Limits::NONE, s) else {
                break;
            };
            game.play(a)
                .context("the opponent chose an illegal action")?;
            writeln!(out, "opponent plays {a}")?;
            if game.position().to_act() == human || game.outcome().is_some() {
                show(out, &game, human)?;
            }
            continue;
        }
        write!(out, "your action> ")?;
        out.flush()?;
        line.clear();
        if input.read_line(&mut line)? == 0 {
            writeln!(out, "\nend of input: stopping")?;
            break;
        }
        let text = line.trim();
        match text {
            "" => continue,
            "quit" | "exit" => break,
            "help" | "?" => writeln!(out, "{HELP}")?,
            "board" | "d" => show(out, &game, human)?,
            "moves" | "legal" => {
                let mut moves: Vec<String> =
                    game.legal_actions().iter().map(|a| a.to_string()).collect();
                moves.sort();
                writeln!(out, "legal: {}", moves.join(" "))?;
            }
            "undo" => {
                if undo_turn(&mut game, human) == 0 {
                    writeln!(out, "nothing to undo")?;
                } else {
                    show(out, &game, human)?;
                }
            }
            _ => match game.play_str(text) {
                Ok(_) => {
                    if game.outcome().is_some() {
                        show(out, &game, human)?;
                    } else if game.position().to_act() == human {
                        writeln!(out, "you act again: {}", game.position().task().name())?;
                    }
                }
                Err(PlayError::Notation(e)) => {
                    writeln!(
                        out,
                        "{e}. Try d7 (place), a1-a4 (move) or xg7 (remove); 'help' for more."
                    )?;
                }
                Err(PlayError::Illegal(e)) => {
                    writeln!(out, "{e}. Type 'moves' to see your legal actions.")?;
                }
            },
        }
    }
    Ok(game)
}
