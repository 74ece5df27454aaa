//! Shards: finished self-play games in a versioned binary format, the only
//! module that reads or writes them.
//!
//! ```text
//! magic      8 bytes  "SHAXSHRD"
//! version    u32      SHARD_VERSION
//! length     u64      bytes of the payload
//! checksum   u64      FNV-1a 64 of the payload
//! payload:
//!   rules      u32 length + UTF-8 (the rules file, Rules::to_toml)
//!   net_step   u64      the training step of the network that played
//!   sims       u64      simulations searched for these games
//!   seconds    f32      worker seconds spent on them
//!   games      u32
//!   per game:
//!     actions  u32 count, then per action: u16 policy index, u8 flags (bit 0: full search)
//!     winner   u8 (0 draw, 1 white, 2 black), reason: u8 length + UTF-8
//!     samples  u32 count, then per sample:
//!       ply u32 (the position before action `ply`), root value f32,
//!       entries u16 count, then per entry: u16 policy index, f32 probability
//! ```
//!
//! All integers little-endian. Written to a temporary name in the same folder
//! and renamed, so a reader never sees a half-written shard; the checksum
//! catches one truncated or damaged some other way.

pub(crate) use shax_nn::write_atomic;
use std::fs;
use std::path::{Path, PathBuf};

use shax_core::{Action, Color, Outcome, Position, Reason, Rules, RulesError};
use shax_nn::{MATERIAL_HORIZON, MATERIAL_TARGETS};

/// The shard format's magic bytes.
pub const SHARD_MAGIC: &[u8; 8] = b"SHAXSHRD";
/// The shard format's version.
pub const SHARD_VERSION: u32 = 1;
/// Shard files end with this.
pub const SHARD_EXTENSION: &str = "shard";

/// Why a shard could not be written or read, naming the file.
#[derive(Debug, thiserror::Error)]
pub enum ShardError {
    /// Reading or writing failed.
    #[error("shard {path}: {message}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's message.
        message: String,
    },
    /// Not a shard, another version, truncated, damaged or inconsistent.
    #[error("shard {path}: {source}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        source: DecodeError,
    },
}

/// What is wrong with the bytes of a shard.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum DecodeError {
    /// The file does not start with [`SHARD_MAGIC`].
    #[error("not a shard (bad magic)")]
    Magic,
    /// A format version this build does not read.
    #[error("version {0} is not supported (this build reads {SHARD_VERSION})")]
    Version(u32),
    /// The payload is not as long as the header says.
    #[error("truncated or padded: payload of {actual} bytes, header says {header}")]
    Length {
        /// The payload's length.
        actual: usize,
        /// The header's length.
        header: usize,
    },
    /// The payload's checksum does not match.
    #[error("checksum mismatch (damaged)")]
    Checksum,
    /// The bytes end inside a field.
    #[error("ends early (at byte {0})")]
    EndsEarly(usize),
    /// A text field is not UTF-8.
    #[error("text is not UTF-8")]
    Utf8,
    /// The rules do not parse.
    #[error("rules: {0}")]
    Rules(#[from] RulesError),
    /// A game is inconsistent (an illegal action, a bad sample, ...).
    #[error("game {game}: {why}")]
    Game {
        /// The game's index in the shard.
        game: usize,
        /// What is wrong with it.
        why: String,
    },
    /// Bytes after the last game.
    #[error("trailing bytes after the last game")]
    Trailing,
}

/// One position trained on: the search's policy target over the legal actions.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchSample {
    /// The position is the one before action number `ply`.
    pub ply: u32,
    /// The search's root value for the player to act.
    pub root_value: f32,
    /// `(policy index, probability)` over the legal actions.
    pub policy: Vec<(u16, f32)>,
}

/// One finished game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameData {
    /// Every action, from the rules' starting position.
    pub actions: Vec<Action>,
    /// Per action: whether it was chosen by a full search (playout cap).
    pub full_search: Vec<bool>,
    /// The result.
    pub outcome: Outcome,
    /// The positions trained on.
    pub samples: Vec<SearchSample>,
}

/// A batch of finished games played by one network.
#[derive(Clone, Debug, PartialEq)]
pub struct Shard {
    /// The rules.
    pub rules: Rules,
    /// The training step of the network that played them.
    pub net_step: u64,
    /// Simulations searched.
    pub sims: u64,
    /// Worker seconds spent.
    pub seconds: f32,
    /// The games.
    pub games: Vec<GameData>,
}

/// A training example: a position, its policy target, its value target.
#[derive(Clone, Debug)]
pub struct Example {
    /// The position.
    pub position: Position,
    /// `(policy index, probability)`.
    pub policy: Vec<(u16, f32)>,
    /// The game's result for the position's player to act: 1, 0 or -1.
    pub value: f32,
    /// The search's root value for the position's player to act.
    pub search_value: f32,
    /// The material head's targets for the position's player to act: the
    /// piece difference [`MATERIAL_HORIZON`] actions later (the end, if
    /// sooner) and at the end, each over the rules' pieces per side.
    pub material: [f32; MATERIAL_TARGETS],
}

impl Example {
    /// The value target as win/draw/loss probabilities: the game's result,
    /// mixed with the search's root value by `search_weight` (0: the result
    /// alone). The root value `q` counts as a win with probability
    /// `(1 + q) / 2`, else a loss: the search reports no draw share.
    pub fn wdl_target(&self, search_weight: f32) -> [f32; 3] {
        let result = match self.value {
            v if v > 0.5 => [1.0, 0.0, 0.0],
            v if v < -0.5 => [0.0, 0.0, 1.0],
            _ => [0.0, 1.0, 0.0],
        };
        let q = self.search_value.clamp(-1.0, 1.0);
        let search = [(1.0 + q) / 2.0, 0.0, (1.0 - q) / 2.0];
        let w = search_weight.clamp(0.0, 1.0);
        [0, 1, 2].map(|i| (1.0 - w) * result[i] + w * search[i])
    }
}

impl Shard {
    /// Positions trained on.
    pub fn positions(&self) -> usize {
        self.games.iter().map(|g| g.samples.len()).sum()
    }

    /// The training examples: each sample's position (replayed from the
    /// start), its policy target and the result for its player to act.
    pub fn examples(&self) -> Vec<Example> {
        let mut out = Vec::with_capacity(self.positions());
        for g in &self.games {
            out.extend(self.game_examples(g));
        }
        out
    }

    /// The training examples of one of its games.
    pub fn game_examples(&self, g: &GameData) -> Vec<Example> {
        let mut out = Vec::with_capacity(g.samples.len());
        let material = white_material(self.rules, &g.actions);
        let end = material.len() - 1;
        let mut pos = Position::new(self.rules);
        let mut next = g.samples.iter().peekable();
        for (ply, &a) in g.actions.iter().enumerate() {
            while let Some(s) = next.next_if(|s| s.ply as usize == ply) {
                let sign = if pos.to_act() == Color::White {
                    1.0
                } else {
                    -1.0
                };
                let ahead = material[(ply + MATERIAL_HORIZON).min(end)];
                out.push(Example {
                    position: pos,
                    policy: s.policy.clone(),
                    value: g.outcome.value_for(pos.to_act()),
                    search_value: s.root_value,
                    material: [sign * ahead, sign * material[end]],
                });
            }
            pos.play_unchecked(a);
        }
        out
    }
}

/// White's pieces minus Black's (on the board and in hand) over the rules'
/// pieces per side, before each of `actions` and after the last.
fn white_material(rules: Rules, actions: &[Action]) -> Vec<f32> {
    let per_side = f32::from(rules.pieces.max(1));
    let diff =
        |p: &Position| (p.pieces(Color::White) as f32 - p.pieces(Color::Black) as f32) / per_side;
    let mut pos = Position::new(rules);
    let mut out = Vec::with_capacity(actions.len() + 1);
    out.push(diff(&pos));
    for &a in actions {
        pos.play_unchecked(a);
        out.push(diff(&pos));
    }
    out
}

fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Encodes a shard (header and payload).
pub fn encode_shard(shard: &Shard) -> Vec<u8> {
    let mut p = Vec::new();
    let rules = shard.rules.to_toml();
    p.extend_from_slice(&(rules.len() as u32).to_le_bytes());
    p.extend_from_slice(rules.as_bytes());
    p.extend_from_slice(&shard.net_step.to_le_bytes());
    p.extend_from_slice(&shard.sims.to_le_bytes());
    p.extend_from_slice(&shard.seconds.to_le_bytes());
    p.extend_from_slice(&(shard.games.len() as u32).to_le_bytes());
    for g in &shard.games {
        p.extend_from_slice(&(g.actions.len() as u32).to_le_bytes());
        for (i, a) in g.actions.iter().enumerate() {
            p.extend_from_slice(&(a.policy_index() as u16).to_le_bytes());
            p.push(u8::from(g.full_search.get(i).copied().unwrap_or(false)));
        }
        p.push(match g.outcome.winner {
            None => 0,
            Some(Color::White) => 1,
            Some(Color::Black) => 2,
        });
        let reason = g.outcome.reason.name();
        p.push(reason.len() as u8);
        p.extend_from_slice(reason.as_bytes());
        p.extend_from_slice(&(g.samples.len() as u32).to_le_bytes());
        for s in &g.samples {
            p.extend_from_slice(&s.ply.to_le_bytes());
            p.extend_from_slice(&s.root_value.to_le_bytes());
            p.extend_from_slice(&(s.policy.len() as u16).to_le_bytes());
            for &(i, prob) in &s.policy {
                p.extend_from_slice(&i.to_le_bytes());
                p.extend_from_slice(&prob.to_le_bytes());
            }
        }
    }
    let mut out = Vec::with_capacity(p.len() + 28);
    out.extend_from_slice(SHARD_MAGIC);
    out.extend_from_slice(&SHARD_VERSION.to_le_bytes());
    out.extend_from_slice(&(p.len() as u64).to_le_bytes());
    out.extend_from_slice(&fnv1a64(&p).to_le_bytes());
    out.extend_from_slice(&p);
    out
}

/// A bounds-checked reader.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or(DecodeError::EndsEarly(self.at))?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        Ok(self.take(N)?.try_into().unwrap_or([0; N]))
    }
    fn u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.take(1)?[0])
    }
    fn u16(&mut self) -> Result<u16, DecodeError> {
        Ok(u16::from_le_bytes(self.array()?))
    }
    fn u32(&mut self) -> Result<u32, DecodeError> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    fn u64(&mut self) -> Result<u64, DecodeError> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    fn f32(&mut self) -> Result<f32, DecodeError> {
        Ok(f32::from_le_bytes(self.array()?))
    }
    fn str(&mut self, n: usize) -> Result<&'a str, DecodeError> {
        std::str::from_utf8(self.take(n)?).map_err(|_| DecodeError::Utf8)
    }
}

/// Decodes and checks a shard: magic, version, length, checksum, and every
/// game replayed (each action legal, each sample's policy on legal actions).
///
/// # Errors
///
/// [`DecodeError`] saying what is wrong.
pub fn decode_shard(bytes: &[u8]) -> Result<Shard, DecodeError> {
    let payload = checked_payload(bytes)?;
    let mut c = Cursor {
        bytes: payload,
        at: 0,
    };
    let n = c.u32()? as usize;
    let rules = Rules::from_toml(c.str(n)?)?;
    let net_step = c.u64()?;
    let sims = c.u64()?;
    let seconds = c.f32()?;
    let games_n = c.u32()? as usize;
    let mut games = Vec::with_capacity(games_n.min(1 << 16));
    for gi in 0..games_n {
        let game_err = |why: String| DecodeError::Game { game: gi, why };
        games.push(decode_game(&mut c, rules).map_err(|e| match e {
            GameError::Bytes(e) => e,
            GameError::Bad(why) => game_err(why),
        })?);
    }
    if c.at != payload.len() {
        return Err(DecodeError::Trailing);
    }
    Ok(Shard {
        rules,
        net_step,
        sims,
        seconds,
        games,
    })
}

/// The payload of a shard after its header's magic, version, length and
/// checksum are checked.
fn checked_payload(bytes: &[u8]) -> Result<&[u8], DecodeError> {
    let mut c = Cursor { bytes, at: 0 };
    if c.take(8).ok() != Some(&SHARD_MAGIC[..]) {
        return Err(DecodeError::Magic);
    }
    let version = c.u32()?;
    if version != SHARD_VERSION {
        return Err(DecodeError::Version(version));
    }
    let header = c.u64()? as usize;
    let sum = c.u64()?;
    let payload = &bytes[c.at..];
    if payload.len() != header {
        return Err(DecodeError::Length {
            actual: payload.len(),
            header,
        });
    }
    if fnv1a64(payload) != sum {
        return Err(DecodeError::Checksum);
    }
    Ok(payload)
}

/// Why one game does not decode: its bytes, or what they say.
enum GameError {
    Bytes(DecodeError),
    Bad(String),
}

impl From<DecodeError> for GameError {
    fn from(e: DecodeError) -> GameError {
        GameError::Bytes(e)
    }
}

/// One game, replayed from the rules' start as it is read.
fn decode_game(c: &mut Cursor<'_>, rules: Rules) -> Result<GameData, GameError> {
    let n = c.u32()? as usize;
    let mut pos = Position::new(rules);
    let mut actions = Vec::with_capacity(n.min(1 << 16));
    let mut full_search = Vec::with_capacity(n.min(1 << 16));
    let mut legal_sets = Vec::with_capacity(n.min(1 << 16));
    for ply in 0..n {
        let idx = c.u16()? as usize;
        let flags = c.u8()?;
        let a = Action::from_policy_index(idx)
            .ok_or_else(|| GameError::Bad(format!("policy index {idx} out of range")))?;
        let legal = pos.legal_actions();
        if !legal.contains(&a) {
            return Err(GameError::Bad(format!("action {ply} ({a}) is illegal")));
        }
        legal_sets.push(
            legal
                .iter()
                .map(|l| l.policy_index() as u16)
                .collect::<Vec<_>>(),
        );
        pos.play_unchecked(a);
        actions.push(a);
        full_search.push(flags & 1 == 1);
    }
    let winner = match c.u8()? {
        0 => None,
        1 => Some(Color::White),
        2 => Some(Color::Black),
        w => return Err(GameError::Bad(format!("bad winner {w}"))),
    };
    let rn = c.u8()? as usize;
    let reason_name = c.str(rn)?;
    let reason = Reason::from_name(reason_name)
        .ok_or_else(|| GameError::Bad(format!("unknown reason '{reason_name}'")))?;
    let samples = decode_samples(c, &legal_sets)?;
    Ok(GameData {
        actions,
        full_search,
        outcome: Outcome { winner, reason },
        samples,
    })
}

/// A game's samples, each checked against the legal actions of its ply.
fn decode_samples(
    c: &mut Cursor<'_>,
    legal_sets: &[Vec<u16>],
) -> Result<Vec<SearchSample>, GameError> {
    let sn = c.u32()? as usize;
    let mut samples = Vec::with_capacity(sn.min(1 << 16));
    for _ in 0..sn {
        let ply = c.u32()?;
        let root_value = c.f32()?;
        let k = c.u16()? as usize;
        let legal = legal_sets
            .get(ply as usize)
            .ok_or_else(|| GameError::Bad(format!("sample at ply {ply} beyond the game")))?;
        let mut policy = Vec::with_capacity(k);
        for _ in 0..k {
            let i = c.u16()?;
            let p = c.f32()?;
            if !legal.contains(&i) {
                return Err(GameError::Bad(format!(
                    "sample at ply {ply} targets an illegal action"
                )));
            }
            if !(0.0..=1.0 + 1e-4).contains(&p) {
                return Err(GameError::Bad(format!("probability {p} out of range")));
            }
            policy.push((i, p));
        }
        samples.push(SearchSample {
            ply,
            root_value,
            policy,
        });
    }
    if samples.windows(2).any(|w| w[0].ply >= w[1].ply) {
        return Err(GameError::Bad("samples out of order".to_string()));
    }
    Ok(samples)
}

/// Writes `shard` as `path` through a temporary name (`.name.tmp<pid>`) and a rename.
///
/// # Errors
///
/// [`ShardError::Io`] naming the file.
pub fn write_shard(path: &Path, shard: &Shard) -> Result<(), ShardError> {
    write_atomic(path, &encode_shard(shard)).map_err(|e| ShardError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

/// Reads and checks the shard `path`.
///
/// # Errors
///
/// [`ShardError::Io`] when it cannot be read, [`ShardError::Corrupt`] saying
/// what is wrong with it.
pub fn read_shard(path: &Path) -> Result<Shard, ShardError> {
    let bytes = fs::read(path).map_err(|e| ShardError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    decode_shard(&bytes).map_err(|source| ShardError::Corrupt {
        path: path.to_path_buf(),
        source,
    })
}

/// The shard files of `dir` (not the temporaries), oldest name first. Names
/// start with a zero-padded time in milliseconds, so name order is time order.
pub fn list_shards(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|x| x == SHARD_EXTENSION)
                && !p
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        })
        .collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use shax_core::Game;

    pub(crate) fn sample_shard() -> Shard {
        let rules = Rules::default();
        let mut game = Game::new(rules);
        let mut samples = Vec::new();
        let mut full = Vec::new();
        for ply in 0..12u32 {
            let legal = game.legal_actions();
            let n = legal.len() as f32;
            if ply % 3 == 0 {
                samples.push(SearchSample {
                    ply,
                    root_value: 0.25,
                    policy: legal
                        .iter()
                        .map(|a| (a.policy_index() as u16, 1.0 / n))
                        .collect(),
                });
            }
            full.push(ply % 3 == 0);
            game.play(legal[(ply as usize * 7) % legal.len()]).unwrap();
        }
        Shard {
            rules,
            net_step: 42,
            sims: 1234,
            seconds: 1.5,
            games: vec![GameData {
                actions: game.actions().to_vec(),
                full_search: full,
                outcome: Outcome {
                    winner: Some(Color::Black),
                    reason: Reason::Blocked,
                },
                samples,
            }],
        }
    }

    #[test]
    fn shard_round_trips() {
        let s = sample_shard();
        let back = decode_shard(&encode_shard(&s)).unwrap();
        assert_eq!(back, s);
        assert_eq!(back.positions(), 4);
        let ex = back.examples();
        assert_eq!(ex.len(), 4);
        // Values are from each position's player to act.
        for e in &ex {
            let expect = if e.position.to_act() == Color::Black {
                1.0
            } else {
                -1.0
            };
            assert_eq!(e.value, expect);
        }
    }

    /// Each example's material targets: the piece difference for its player
    /// to act `MATERIAL_HORIZON` actions later (the end, if sooner) and at
    /// the end, over the pieces per side, on a random game with captures.
    #[test]
    fn material_targets_look_ahead_from_the_player_to_act() {
        let rules = Rules::preset(shax_core::Preset::NineMensMorris);
        let game = crate::testkit::random_game(rules, 5);
        let mut replay = Game::new(rules);
        let mut positions = vec![*replay.position()];
        for &a in game.actions() {
            replay.play(a).unwrap();
            positions.push(*replay.position());
        }
        let samples = (0..game.len() as u32)
            .map(|ply| SearchSample {
                ply,
                root_value: 0.0,
                policy: Vec::new(),
            })
            .collect();
        let shard = Shard {
            rules,
            net_step: 0,
            sims: 0,
            seconds: 0.0,
            games: vec![GameData {
                actions: game.actions().to_vec(),
                full_search: vec![true; game.len()],
                outcome: game.outcome().unwrap(),
                samples,
            }],
        };
        let diff =
            |p: &Position, c: Color| (p.pieces(c) as f32 - p.pieces(c.opponent()) as f32) / 9.0;
        let end = game.position();
        assert!(
            end.pieces(Color::White) + end.pieces(Color::Black) < 18,
            "no capture"
        );
        let examples = shard.examples();
        assert_eq!(examples.len(), game.len());
        let mut looked_ahead = 0;
        for (ply, e) in examples.iter().enumerate() {
            let me = e.position.to_act();
            let later = &positions[(ply + MATERIAL_HORIZON).min(game.len())];
            assert_eq!(e.material, [diff(later, me), diff(end, me)], "ply {ply}");
            looked_ahead += usize::from(e.material[0] != diff(&e.position, me));
        }
        assert!(looked_ahead > 0, "every target was the present material");
    }

    #[test]
    fn damage_is_detected_never_a_panic() {
        let bytes = encode_shard(&sample_shard());
        for cut in [0, 5, 12, 27, bytes.len() / 2, bytes.len() - 1] {
            assert!(decode_shard(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut flipped = bytes.clone();
        let last = flipped.len() - 3;
        flipped[last] ^= 0x40;
        assert_eq!(decode_shard(&flipped).unwrap_err(), DecodeError::Checksum);
        let mut version = bytes;
        version[8] = 9;
        assert_eq!(decode_shard(&version).unwrap_err(), DecodeError::Version(9));
    }
}
