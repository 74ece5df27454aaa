//! `shax analyse`: review recorded games with a searching player; each
//! action's cost and each side's mistakes.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, bail};
use shax_core::{Color, Rules};
use shax_search::{Limits, Player, WIN, WIN_BOUND};
use shax_train::{GameRecord, GameReview, read_records, review_game};

use super::players::registry;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Game records (JSON lines, as `shax arena`, `match` and `play` write them).
    records: PathBuf,
    /// The games to review, by their line number from 1 (`3`, `1,4,9`, `2-5`); default all.
    #[arg(long)]
    games: Option<String>,
    /// The reviewer: a searching player's spec (alphabeta, mcts, net). Its own budget
    /// applies; a deeper search than the players' makes a better judge.
    #[arg(long = "with", default_value = "alphabeta:nodes=200000")]
    reviewer: String,
    /// A mistake costs at least this much of the reviewer's score (alpha-beta:
    /// centi-pieces; network search: 1000 x the value, so 1000 is a full point).
    #[arg(long, default_value_t = 100)]
    drop: i32,
    /// Seed of the reviewer's choices.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Print one JSON object per game instead of the report.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let records = chosen_records(&args)?;
    let mut reviewer: Option<(String, Box<dyn Player>)> = None;
    let mut out = super::stdout();
    for (line, record) in records {
        let rules = Rules::from_toml(&record.rules_toml)
            .with_context(|| format!("{} line {line}", args.records.display()))?;
        // One reviewer for every game of the same rules (a network loads once).
        if reviewer
            .as_ref()
            .is_none_or(|(r, _)| *r != record.rules_toml)
        {
            let p = registry(rules).build_str(&args.reviewer).with_context(|| {
                format!(
                    "--with '{}' for {} line {line} ({})",
                    args.reviewer,
                    args.records.display(),
                    record.rules
                )
            })?;
            reviewer = Some((record.rules_toml.clone(), p));
        }
        let (_, player) = reviewer.as_mut().expect("built above");
        let review = review_game(&record, player.as_mut(), &Limits::NONE, args.seed)
            .with_context(|| format!("{} line {line}", args.records.display()))?;
        if args.json {
            let mut v = serde_json::to_value(&review)?;
            v["game"] = line.into();
            v["reviewer"] = args.reviewer.clone().into();
            writeln!(out, "{v}")?;
        } else {
            report(&mut out, line, &record, &review, args.drop)?;
        }
    }
    Ok(())
}

/// The chosen records with their line numbers; a line that is not a record is an error.
fn chosen_records(args: &Args) -> anyhow::Result<Vec<(usize, GameRecord)>> {
    let path = &args.records;
    let mut all = read_records(path)?;
    let Some(list) = &args.games else {
        return Ok(all);
    };
    let wanted = parse_games(list).with_context(|| format!("--games '{list}'"))?;
    for &(a, b) in &wanted {
        if !all.iter().any(|(l, _)| (a..=b).contains(l)) {
            let lines = if a == b {
                format!("line {a}")
            } else {
                format!("lines {a}-{b}")
            };
            bail!("--games: {} has no game on {lines}", path.display());
        }
    }
    all.retain(|(l, _)| wanted.iter().any(|&(a, b)| (a..=b).contains(l)));
    Ok(all)
}

/// `3`, `1,4,9`, `2-5` or a mix: ranges of line numbers from 1 (a number is
/// the range of itself).
fn parse_games(list: &str) -> anyhow::Result<Vec<(usize, usize)>> {
    let mut out = Vec::new();
    for item in list.split(',').map(str::trim) {
        let num = |s: &str| -> anyhow::Result<usize> {
            match s.trim().parse::<usize>() {
                Ok(n) if n >= 1 => Ok(n),
                _ => bail!("'{s}' is not a line number (1 or more)"),
            }
        };
        match item.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (num(a)?, num(b)?);
                if a > b {
                    bail!("'{item}' runs backwards");
                }
                out.push((a, b));
            }
            None => {
                let n = num(item)?;
                out.push((n, n));
            }
        }
    }
    Ok(out)
}

fn report(
    out: &mut impl Write,
    line: usize,
    record: &GameRecord,
    r: &GameReview,
    drop: i32,
) -> std::io::Result<()> {
    let result = match r.winner.as_str() {
        "none" => format!("draw ({})", r.reason),
        w => format!("{w} wins ({})", r.reason),
    };
    writeln!(
        out,
        "game {line}: white {} / black {}: {result}, {} actions",
        r.white,
        r.black,
        r.actions.len()
    )?;
    table(out, r, drop)?;
    for c in Color::BOTH {
        let spec = if c == Color::White {
            &record.white
        } else {
            &record.black
        };
        writeln!(out, "  {} ({spec}): {}", c.name(), mistakes(r, c, drop))?;
    }
    writeln!(out)
}

/// Every action: the scores around it, its cost, the reviewer's choice.
fn table(out: &mut impl Write, r: &GameReview, drop: i32) -> std::io::Result<()> {
    writeln!(
        out,
        "  ply  mover  action   before    after   cost  reviewer's choice   (#N: a win in N actions)"
    )?;
    for a in &r.actions {
        let mark = match (a.opening, a.cost >= drop) {
            (true, _) => "  (opening)",
            (false, true) => "  ??",
            (false, false) => "",
        };
        let (before, after) = (score(a.before), score(a.after));
        writeln!(
            out,
            "  {:>3}  {:<5}  {:<7} {before:>7}  {after:>7}  {:>5}  {}{mark}",
            a.ply, a.mover, a.action, a.cost, a.best
        )?;
    }
    Ok(())
}

/// A side's mistakes in words: how many, and the worst three.
fn mistakes(r: &GameReview, c: Color, drop: i32) -> String {
    let m = r.mistakes(c, drop);
    let count = match m.len() {
        1 => "1 action".to_string(),
        n => format!("{n} actions"),
    };
    let worst: Vec<String> = m
        .iter()
        .take(3)
        .map(|a| format!("{} at ply {} (-{})", a.action, a.ply, a.cost))
        .collect();
    if worst.is_empty() {
        format!("{count} cost {drop} or more")
    } else {
        format!(
            "{count} cost {drop} or more; the worst: {}",
            worst.join(", ")
        )
    }
}

/// A score as the report prints it: a proven result as `#N` (a win in N
/// actions) or `-#N`, or `win` / `loss` where the distance is unknown (the
/// network search's solver), anything else as it is.
fn score(s: i32) -> String {
    match s {
        WIN_BOUND => "win".to_string(),
        s if s == -WIN_BOUND => "loss".to_string(),
        s if s >= WIN_BOUND => format!("#{}", WIN - s),
        s if s <= -WIN_BOUND => format!("-#{}", WIN + s),
        s => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::{parse_games, score};

    #[test]
    fn proven_results_print_as_distances() {
        assert_eq!(score(29_987), "#13");
        assert_eq!(score(-30_000), "-#0");
        assert_eq!(score(-215), "-215");
        assert_eq!(
            (score(29_000), score(-29_000)),
            ("win".into(), "loss".into())
        );
    }

    #[test]
    fn game_lists_take_numbers_and_ranges() {
        assert_eq!(parse_games("3").unwrap(), [(3, 3)]);
        assert_eq!(parse_games("1, 4,2-5").unwrap(), [(1, 1), (4, 4), (2, 5)]);
        assert_eq!(parse_games("1-99999999999").unwrap(), [(1, 99_999_999_999)]);
        for bad in ["0", "x", "5-2", "", "1-"] {
            assert!(parse_games(bad).is_err(), "{bad}");
        }
    }
}
