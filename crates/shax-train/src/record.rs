//! The game record: one JSON object per line, version first. Everything a
//! later tool needs to replay the game: the rules (name and full TOML), the
//! players, the random opening and the actions that followed, in notation.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use shax_core::{Game, Outcome, PlayError, Rules, RulesError};

/// The record format's version.
pub const RECORD_VERSION: u32 = 1;

/// One finished game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    /// Always [`RECORD_VERSION`] for records written by this code.
    pub version: u32,
    /// The rules' name (`shax`, or `<preset>+custom`).
    pub rules: String,
    /// The complete rules as a rules file ([`Rules::to_toml`]).
    pub rules_toml: String,
    /// White's player spec.
    pub white: String,
    /// Black's player spec.
    pub black: String,
    /// The game's seed (player decisions derive theirs from it).
    pub seed: u64,
    /// The random opening, played before the players took over.
    pub opening: Vec<String>,
    /// The players' actions after the opening.
    pub actions: Vec<String>,
    /// `white`, `black`, or `none` for a draw.
    pub winner: String,
    /// Why the game ended (`pieces`, `blocked`, `no-jare`, `repetition`, ...).
    pub reason: String,
}

/// Why a record could not be replayed.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The record's version is not one this code reads.
    #[error("game record version {0} is not supported (this build reads {RECORD_VERSION})")]
    Version(u32),
    /// The rules do not parse.
    #[error("game record rules: {0}")]
    Rules(#[from] RulesError),
    /// An action does not parse or is not legal.
    #[error("game record action {index} '{action}': {source}")]
    Action {
        /// Index in opening ++ actions.
        index: usize,
        /// The action's text.
        action: String,
        /// What was wrong.
        source: PlayError,
    },
    /// The replayed game does not end as recorded.
    #[error("game record says '{recorded}' but the replay ends with '{replayed}'")]
    Outcome {
        /// The recorded result.
        recorded: String,
        /// The result of the replay.
        replayed: String,
    },
}

impl GameRecord {
    /// A record of `game` (which must be over), whose first `opening` actions
    /// were the random opening.
    pub fn new(game: &Game, opening: usize, white: &str, black: &str, seed: u64) -> GameRecord {
        let rules = *game.position().rules();
        let actions: Vec<String> = game.actions().iter().map(|a| a.to_string()).collect();
        let (winner, reason) = outcome_words(game.outcome());
        GameRecord {
            version: RECORD_VERSION,
            rules: rules.name(),
            rules_toml: rules.to_toml(),
            white: white.to_string(),
            black: black.to_string(),
            seed,
            opening: actions[..opening].to_vec(),
            actions: actions[opening..].to_vec(),
            winner,
            reason,
        }
    }

    /// Replays the record and checks its result.
    ///
    /// # Errors
    ///
    /// [`RecordError`] naming the version, the rules, the first action that
    /// does not play, or the result that does not match.
    pub fn replay(&self) -> Result<Game, RecordError> {
        if self.version != RECORD_VERSION {
            return Err(RecordError::Version(self.version));
        }
        let rules = Rules::from_toml(&self.rules_toml)?;
        let mut game = Game::new(rules);
        for (index, a) in self.opening.iter().chain(&self.actions).enumerate() {
            game.play_str(a).map_err(|source| RecordError::Action {
                index,
                action: a.clone(),
                source,
            })?;
        }
        let (winner, reason) = outcome_words(game.outcome());
        if winner != self.winner || reason != self.reason {
            return Err(RecordError::Outcome {
                recorded: format!("{} {}", self.winner, self.reason),
                replayed: format!("{winner} {reason}"),
            });
        }
        Ok(game)
    }
}

fn outcome_words(o: Option<Outcome>) -> (String, String) {
    match o {
        Some(o) => (
            o.winner.map_or("none", |c| c.name()).to_string(),
            o.reason.name().to_string(),
        ),
        None => ("none".to_string(), "unfinished".to_string()),
    }
}

/// Why a file of game records could not be read.
#[derive(Debug, thiserror::Error)]
pub enum RecordsFileError {
    /// The file could not be opened or read.
    #[error("reading {}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// A line is not a game record.
    #[error("{} line {line}: not a game record", path.display())]
    NotARecord {
        /// The file.
        path: PathBuf,
        /// The line, from 1.
        line: usize,
        /// What the JSON parser said.
        source: serde_json::Error,
    },
}

/// Reads the game records at `path`, one JSON object a line as
/// [`write_records`] writes them (blank lines skipped), each with its line
/// number from 1.
///
/// # Errors
///
/// [`RecordsFileError`] naming the file, and the first line that is not a
/// record.
pub fn read_records(path: &Path) -> Result<Vec<(usize, GameRecord)>, RecordsFileError> {
    let io = |source| RecordsFileError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut records = Vec::new();
    for (i, text) in BufReader::new(file).lines().enumerate() {
        let text = text.map_err(io)?;
        if text.trim().is_empty() {
            continue;
        }
        let record =
            serde_json::from_str(&text).map_err(|source| RecordsFileError::NotARecord {
                path: path.to_path_buf(),
                line: i + 1,
                source,
            })?;
        records.push((i + 1, record));
    }
    Ok(records)
}

/// Writes records as JSON lines to `path`, atomically
/// ([`shax_nn::write_atomic`]; a device such as `/dev/null` as it is).
///
/// # Errors
///
/// Any I/O error.
pub fn write_records(path: &Path, records: &[GameRecord]) -> std::io::Result<()> {
    let mut bytes = Vec::new();
    for r in records {
        serde_json::to_writer(&mut bytes, r)?;
        bytes.push(b'\n');
    }
    shax_nn::write_atomic(path, &bytes)
}
