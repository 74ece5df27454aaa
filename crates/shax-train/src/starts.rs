//! Start positions for self-play from game records (`selfplay.start_records`):
//! a share of the games begins at a position met in recorded games instead
//! of at the rules' start, as KataGo starts some of its games from positions
//! its network misjudged in other games. Records of the network's games
//! against a strong alpha-beta put its self-play where that opponent takes
//! it, positions plain self-play rarely reaches.

use std::error::Error as _;
use std::path::Path;

use shax_core::{Action, KeyHistory, Position, Rules};

use crate::record::read_records;

/// The recorded games whose positions start self-play games.
#[derive(Clone, Debug, Default)]
pub struct StartPositions {
    /// Each game's actions, its random opening first, and the opening's length.
    lines: Vec<(Vec<Action>, usize)>,
}

impl StartPositions {
    /// Reads the game records at `path` (JSON lines, as `shax arena --out`
    /// writes them), each replayed and checked to be played under `rules`.
    ///
    /// # Errors
    ///
    /// A message naming the file, and the line where the file has one that
    /// is not a record of a game under `rules`; or none at all.
    pub fn load(path: &Path, rules: &Rules) -> Result<StartPositions, String> {
        let at = |line: usize, why: String| format!("{} line {line}: {why}", path.display());
        let records = read_records(path).map_err(|e| match e.source() {
            Some(cause) => format!("{e}: {cause}"),
            None => e.to_string(),
        })?;
        let mut lines = Vec::new();
        for (line, record) in records {
            let game = record.replay().map_err(|e| at(line, e.to_string()))?;
            if game.position().rules() != rules {
                let why = format!("a game of {}, not of {}", record.rules, rules.name());
                return Err(at(line, why));
            }
            // A game over within its opening has no position to start at.
            if game.actions().len() > record.opening.len() {
                lines.push((game.actions().to_vec(), record.opening.len()));
            }
        }
        if lines.is_empty() {
            let why = "no game records with a position after their opening";
            return Err(format!("{}: {why}", path.display()));
        }
        Ok(StartPositions { lines })
    }

    /// Recorded games.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// A start: a recorded game's actions up to a position after its opening
    /// and before its end, each with equal chance (`pick(n)` draws from
    /// `0..n`), with the position and its repetition history.
    pub fn pick(
        &self,
        rules: Rules,
        mut pick: impl FnMut(usize) -> usize,
    ) -> (Vec<Action>, Position, KeyHistory) {
        let (actions, opening) = &self.lines[pick(self.lines.len())];
        // A recorded game ends after its last action: start before it.
        let last = actions.len().saturating_sub(1).max(*opening);
        let line = &actions[..(opening + pick(last - opening + 1)).min(actions.len())];
        let mut pos = Position::new(rules);
        let mut history = KeyHistory::new(&pos);
        for &a in line {
            // Replayed when the records were read: legal.
            pos.play_unchecked(a);
            history.push(a, &pos);
        }
        (line.to_vec(), pos, history)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{GameRecord, write_records};
    use crate::testkit::random_game;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    use shax_core::{Game, Preset};

    /// An empty folder of this test's own.
    fn scratch_dir(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("shax-starts-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn written(dir: &Path, name: &str, games: &[Game]) -> std::path::PathBuf {
        let records: Vec<GameRecord> = games
            .iter()
            .map(|g| GameRecord::new(g, 2, "random", "random", 0))
            .collect();
        let path = dir.join(name);
        write_records(&path, &records).unwrap();
        path
    }

    #[test]
    fn starts_are_unfinished_positions_of_the_recorded_games_past_their_openings() {
        let rules = Rules::preset(Preset::NineMensMorris);
        let games: Vec<Game> = (0..3).map(|s| random_game(rules, s)).collect();
        let dir = scratch_dir("starts");
        let starts = StartPositions::load(&written(&dir, "g.jsonl", &games), &rules).unwrap();
        assert_eq!(starts.len(), 3);
        let mut rng = SmallRng::seed_from_u64(5);
        let mut seen = std::collections::HashSet::new();
        for _ in 0..200 {
            let (line, pos, history) = starts.pick(rules, |n| rng.random_range(0..n));
            assert!(line.len() >= 2, "the opening is kept");
            assert!(
                history.outcome(&pos).is_none(),
                "a start is not a finished game"
            );
            let game = games
                .iter()
                .find(|g| g.actions().starts_with(&line))
                .expect("a prefix of a recorded game");
            assert!(line.len() < game.actions().len());
            seen.insert(line.len());
        }
        assert!(seen.len() > 20, "starts spread over the games: {seen:?}");
    }

    #[test]
    fn records_of_other_rules_or_no_records_are_refused_with_the_file_and_line() {
        let dir = scratch_dir("refused");
        let shax = written(&dir, "shax.jsonl", &[random_game(Rules::default(), 1)]);
        let nmm = Rules::preset(Preset::NineMensMorris);
        let err = StartPositions::load(&shax, &nmm).unwrap_err();
        assert!(
            err.contains("shax.jsonl line 1") && err.contains("not of"),
            "{err}"
        );
        let empty = dir.join("empty.jsonl");
        std::fs::write(&empty, "\n").unwrap();
        let err = StartPositions::load(&empty, &nmm).unwrap_err();
        assert!(err.contains("no game records"), "{err}");
        let junk = dir.join("junk.jsonl");
        std::fs::write(&junk, "{\"version\":1}\n").unwrap();
        let err = StartPositions::load(&junk, &nmm).unwrap_err();
        assert!(
            err.contains("junk.jsonl line 1: not a game record"),
            "{err}"
        );
        let err = StartPositions::load(&dir.join("missing"), &nmm).unwrap_err();
        assert!(err.contains("missing"), "{err}");
    }
}
