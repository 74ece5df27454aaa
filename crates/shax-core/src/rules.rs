//! Rule presets, rule options and the rules file (TOML).
//!
//! A [`Rules`] value is a preset plus overrides; it is validated once, when it
//! is built, and every [`Position`](crate::Position) carries a copy.

use std::fmt;
use std::str::FromStr;

use serde::Deserialize;

use crate::action::Action;
use crate::board::{BoardKind, Point};

/// The four rule sets of `docs/RULES.md`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Preset {
    /// Shax, the Somali game (seed 000): the default.
    Shax,
    /// The second Shax rule set (seed 001): last-placed piece removed, flying at three.
    ShaxFlying,
    /// Nine Men's Morris (seed 002).
    NineMensMorris,
    /// Morabaraba, MSSA rules (seed 003).
    Morabaraba,
}

impl Preset {
    /// Every preset, the default first.
    pub const ALL: [Preset; 4] = [
        Preset::Shax,
        Preset::ShaxFlying,
        Preset::NineMensMorris,
        Preset::Morabaraba,
    ];

    /// The preset's name as used on the command line and in rules files.
    pub const fn name(self) -> &'static str {
        match self {
            Preset::Shax => "shax",
            Preset::ShaxFlying => "shax-flying",
            Preset::NineMensMorris => "nine-mens-morris",
            Preset::Morabaraba => "morabaraba",
        }
    }
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Preset {
    type Err = RulesError;
    fn from_str(s: &str) -> Result<Preset, RulesError> {
        Preset::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| RulesError::UnknownPreset(s.to_string()))
    }
}

/// What a line formed while placing does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PlacementLines {
    /// It removes an enemy piece, as a line formed by moving does.
    Capture,
    /// It captures nothing; only the first one (the first jare) is recorded.
    Record,
}

/// What happens when placing ends with all 24 points occupied (only then).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FullBoard {
    /// Shax: the first jare's maker removes, then the other player; see [`NoJare`].
    JareRemovals,
    /// Shax (seed 001): the piece placed last is removed at once.
    RemoveLastPlaced,
    /// Nothing: the player to move is probably blocked.
    Nothing,
}

/// Shax at the full board when nobody formed a jare.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NoJare {
    /// The game is drawn (seed 000).
    Draw,
    /// Black removes first, then White, then Black moves first (traditional sources).
    SecondPlayerRemovesFirst,
}

/// A player to act who has no legal move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Blocked {
    /// Loses.
    Loses,
    /// Is freed: the opponent must make a freeing move (Shax).
    Freed,
}

/// A complete, validated rule set.
///
/// # Examples
///
/// ```
/// use shax_core::{Preset, Rules};
///
/// let shax = Rules::preset(Preset::Shax);
/// assert_eq!(shax.pieces, 12);
/// assert_eq!(shax.flying, 0);
///
/// let custom = Rules::from_toml("preset = \"nine-mens-morris\"\nflying = 0\n").unwrap();
/// assert_eq!(custom.flying, 0);
/// assert_eq!(custom.pieces, 9);
///
/// let err = Rules::from_toml("preset = \"shax\"\npieces = 13\n").unwrap_err();
/// assert!(err.to_string().contains("pieces"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    /// The preset these rules start from.
    pub preset: Preset,
    /// Pieces per side, 3 to 12.
    pub pieces: u8,
    /// Lines and adjacency.
    pub board: BoardKind,
    /// What a line formed while placing does.
    pub placement_lines: PlacementLines,
    /// What happens when placing fills the board.
    pub full_board: FullBoard,
    /// Shax with no jare at the full board.
    pub no_jare: NoJare,
    /// Pieces in lines are safe from removal unless all are.
    pub mill_protection: bool,
    /// Removals earned by forming two lines at once, 1 or 2.
    pub double_mill_removals: u8,
    /// 0: never; N: a player with N or fewer pieces flies.
    pub flying: u8,
    /// A player to act with no move loses, or is freed by the opponent.
    pub blocked: Blocked,
    /// Morabaraba's no-immediate-return rule.
    pub no_return: bool,
    /// Drawn at the Nth occurrence of a position; 0 off.
    pub repetition: u16,
    /// Movement-phase turns without a removal that draw; 0 off.
    pub no_removal_limit: u32,
    /// The same, counted only while a side has exactly three pieces; 0 off.
    pub endgame_no_removal_turns: u32,
    /// Adjudicated draw after this many actions; 0 off.
    pub max_actions: u32,
}

impl Default for Rules {
    /// The `shax` preset.
    fn default() -> Rules {
        Rules::preset(Preset::Shax)
    }
}

impl Rules {
    /// The rules of a preset, exactly as in `docs/RULES.md`.
    pub const fn preset(preset: Preset) -> Rules {
        let base = Rules {
            preset,
            pieces: 12,
            board: BoardKind::Plain,
            placement_lines: PlacementLines::Record,
            full_board: FullBoard::JareRemovals,
            no_jare: NoJare::Draw,
            mill_protection: false,
            double_mill_removals: 1,
            flying: 0,
            blocked: Blocked::Freed,
            no_return: false,
            repetition: 3,
            no_removal_limit: 50,
            endgame_no_removal_turns: 0,
            max_actions: 1000,
        };
        match preset {
            Preset::Shax => base,
            Preset::ShaxFlying => Rules {
                full_board: FullBoard::RemoveLastPlaced,
                flying: 3,
                blocked: Blocked::Loses,
                ..base
            },
            Preset::NineMensMorris => Rules {
                pieces: 9,
                placement_lines: PlacementLines::Capture,
                full_board: FullBoard::Nothing,
                mill_protection: true,
                flying: 3,
                blocked: Blocked::Loses,
                ..base
            },
            Preset::Morabaraba => Rules {
                board: BoardKind::Diagonal,
                placement_lines: PlacementLines::Capture,
                full_board: FullBoard::Nothing,
                mill_protection: true,
                flying: 3,
                blocked: Blocked::Loses,
                no_return: true,
                no_removal_limit: 0,
                endgame_no_removal_turns: 20,
                ..base
            },
        }
    }

    /// Parses a rules file: `preset = "<name>"` plus any option keys of `docs/RULES.md`.
    ///
    /// # Errors
    ///
    /// [`RulesError`] naming the key when the TOML is malformed, a key is unknown,
    /// `preset` is missing or unknown, or a value is out of range.
    pub fn from_toml(text: &str) -> Result<Rules, RulesError> {
        let file: RulesFile =
            toml::from_str(text).map_err(|e| RulesError::Toml(describe_toml_error(text, &e)))?;
        file.resolve()
    }

    /// Resolves a rules spec as the command line and the engine take it: a preset
    /// name, or the path of a rules TOML file.
    ///
    /// # Errors
    ///
    /// [`RulesError::UnknownRules`] when `spec` is neither a preset nor a readable
    /// file; any error of [`Rules::from_toml`] for the file's contents, with the
    /// file named.
    pub fn load(spec: &str) -> Result<Rules, RulesError> {
        if let Ok(preset) = spec.parse::<Preset>() {
            return Ok(Rules::preset(preset));
        }
        let looks_like_path = spec.ends_with(".toml") || spec.contains('/') || spec.contains('\\');
        match std::fs::read_to_string(spec) {
            Ok(text) => Rules::from_toml(&text).map_err(|e| RulesError::InFile {
                path: spec.to_string(),
                inner: Box::new(e),
            }),
            Err(e) if looks_like_path => Err(RulesError::Io {
                path: spec.to_string(),
                message: e.to_string(),
            }),
            Err(_) => Err(RulesError::UnknownRules(spec.to_string())),
        }
    }

    /// The resolved rules as a rules file that [`Rules::from_toml`] reads back
    /// to the same value: every key, not only the overrides.
    pub fn to_toml(&self) -> String {
        let mut s = String::new();
        let mut kv = |k: &str, v: String| {
            s.push_str(k);
            s.push_str(" = ");
            s.push_str(&v);
            s.push('\n');
        };
        let q = |v: &str| format!("\"{v}\"");
        kv("preset", q(self.preset.name()));
        kv("pieces", self.pieces.to_string());
        kv("board", q(self.board.name()));
        kv(
            "placement_lines",
            q(names::placement_lines(self.placement_lines)),
        );
        kv("full_board", q(names::full_board(self.full_board)));
        kv("no_jare", q(names::no_jare(self.no_jare)));
        kv("mill_protection", self.mill_protection.to_string());
        kv(
            "double_mill_removals",
            self.double_mill_removals.to_string(),
        );
        kv("flying", self.flying.to_string());
        kv("blocked", q(names::blocked(self.blocked)));
        kv("no_return", self.no_return.to_string());
        kv("repetition", self.repetition.to_string());
        kv("no_removal_limit", self.no_removal_limit.to_string());
        kv(
            "endgame_no_removal_turns",
            self.endgame_no_removal_turns.to_string(),
        );
        kv("max_actions", self.max_actions.to_string());
        s
    }

    /// Whether a player with `pieces` pieces flies.
    #[inline]
    pub const fn flies(&self, pieces: u32) -> bool {
        self.flying != 0 && pieces <= self.flying as u32
    }

    /// The policy indices ([`Action::policy_index`]) of every action these
    /// rules can make legal, ascending: a placement and a removal on each
    /// point, and the slides along the board's adjacency, or a move between
    /// any two points where the rules let a player fly. In Shax that is 112
    /// of the 600; the other actions are never legal, so a network's logits
    /// for them are never read.
    ///
    /// # Examples
    ///
    /// ```
    /// use shax_core::{Preset, Rules};
    ///
    /// assert_eq!(Rules::preset(Preset::Shax).policy_support().len(), 112);
    /// assert_eq!(Rules::preset(Preset::NineMensMorris).policy_support().len(), 600);
    /// ```
    pub fn policy_support(&self) -> Vec<usize> {
        let adjacent = &self.board.geometry().adjacent;
        let mut out: Vec<usize> = Point::ALL
            .iter()
            .flat_map(|&p| [Action::Place(p), Action::Remove(p)])
            .chain(Point::ALL.iter().flat_map(|&f| {
                Point::ALL
                    .iter()
                    .filter(move |&&t| {
                        t != f && (self.flying != 0 || adjacent[f.index()].contains(t))
                    })
                    .map(move |&t| Action::Move(f, t))
            }))
            .map(Action::policy_index)
            .collect();
        out.sort_unstable();
        out
    }

    /// Checks every numeric option against its range in `docs/RULES.md`.
    ///
    /// The fields are public for convenience; rules built or changed by hand
    /// must pass this check before a [`Position`](crate::Position) uses them.
    ///
    /// # Errors
    ///
    /// [`RulesError::BadValue`] naming the first key out of range.
    pub fn validate(&self) -> Result<(), RulesError> {
        let values = [
            self.pieces as u64,
            self.double_mill_removals as u64,
            self.flying as u64,
            self.repetition as u64,
            self.no_removal_limit as u64,
            self.endgame_no_removal_turns as u64,
            self.max_actions as u64,
        ];
        match NUMERIC.iter().zip(values).find(|(r, v)| !r.allows(*v)) {
            Some((r, v)) => Err(RulesError::BadValue {
                key: r.key,
                value: v.to_string(),
                allowed: r.describe(),
            }),
            None => Ok(()),
        }
    }

    /// The preset's name when these rules are exactly a preset, else `"<preset>+custom"`.
    pub fn name(&self) -> String {
        if *self == Rules::preset(self.preset) {
            self.preset.name().to_string()
        } else {
            format!("{}+custom", self.preset.name())
        }
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// Why a rules spec or rules file was rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    /// Not valid TOML, an unknown key, a missing `preset` or a value of the wrong type.
    #[error("rules file: {0}")]
    Toml(String),
    /// `preset` names no preset.
    #[error("unknown preset '{0}' (presets: shax, shax-flying, nine-mens-morris, morabaraba)")]
    UnknownPreset(String),
    /// A key's value is not one of its allowed values or out of its range.
    #[error("rules key `{key}`: {value} is not allowed ({allowed})")]
    BadValue {
        /// The key.
        key: &'static str,
        /// The rejected value as written.
        value: String,
        /// What the key accepts.
        allowed: String,
    },
    /// A spec that is neither a preset name nor a file.
    #[error(
        "unknown rules '{0}': not a preset (shax, shax-flying, nine-mens-morris, morabaraba) nor a rules file"
    )]
    UnknownRules(String),
    /// A rules file that could not be read.
    #[error("cannot read rules file '{path}': {message}")]
    Io {
        /// The path as given.
        path: String,
        /// The system's reason.
        message: String,
    },
    /// An error inside a named rules file.
    #[error("{path}: {inner}")]
    InFile {
        /// The path as given.
        path: String,
        /// What was wrong in it.
        inner: Box<RulesError>,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RulesFile {
    preset: String,
    pieces: Option<toml::Value>,
    board: Option<toml::Value>,
    placement_lines: Option<toml::Value>,
    full_board: Option<toml::Value>,
    no_jare: Option<toml::Value>,
    mill_protection: Option<toml::Value>,
    double_mill_removals: Option<toml::Value>,
    flying: Option<toml::Value>,
    blocked: Option<toml::Value>,
    no_return: Option<toml::Value>,
    repetition: Option<toml::Value>,
    no_removal_limit: Option<toml::Value>,
    endgame_no_removal_turns: Option<toml::Value>,
    max_actions: Option<toml::Value>,
}

/// A one-line TOML error that names the line and key where it has them.
fn describe_toml_error(text: &str, e: &toml::de::Error) -> String {
    let message = e.message().trim().replace('\n', "; ");
    let message = message.as_str();
    let Some(span) = e.span() else {
        return message.to_string();
    };
    let line_no = text[..span.start.min(text.len())].matches('\n').count() + 1;
    let line = text.lines().nth(line_no - 1).unwrap_or("");
    match line.split_once('=') {
        Some((key, _)) if !key.trim().is_empty() => {
            format!("line {line_no}, key `{}`: {message}", key.trim())
        }
        _ => format!("line {line_no}: {message}"),
    }
}

/// Converts a TOML integer to the key's type, or names the key.
fn int<T: TryFrom<i64>>(key: &'static str, v: &toml::Value) -> Result<T, RulesError> {
    let bad = || RulesError::BadValue {
        key,
        value: v.to_string(),
        allowed: allowed(key),
    };
    v.as_integer()
        .and_then(|i| T::try_from(i).ok())
        .ok_or_else(bad)
}

fn boolean(key: &'static str, v: &toml::Value) -> Result<bool, RulesError> {
    v.as_bool().ok_or_else(|| RulesError::BadValue {
        key,
        value: v.to_string(),
        allowed: "true or false".to_string(),
    })
}

/// A numeric option's allowed values: `min..=max`, and 0 as well when
/// `zero_off` (0 turns the option off). One table feeds both the check and
/// the error message.
struct NumericRange {
    key: &'static str,
    min: u64,
    max: u64,
    zero_off: bool,
}

impl NumericRange {
    fn allows(&self, v: u64) -> bool {
        (self.zero_off && v == 0) || (self.min..=self.max).contains(&v)
    }

    fn describe(&self) -> String {
        if self.zero_off {
            format!("0, or {} to {}", self.min, self.max)
        } else if self.max == self.min + 1 {
            format!("{} or {}", self.min, self.max)
        } else {
            format!("{} to {}", self.min, self.max)
        }
    }
}

/// The numeric options, in the order [`Rules::validate`] checks them.
const NUMERIC: [NumericRange; 7] = [
    NumericRange {
        key: "pieces",
        min: 3,
        max: 12,
        zero_off: false,
    },
    NumericRange {
        key: "double_mill_removals",
        min: 1,
        max: 2,
        zero_off: false,
    },
    NumericRange {
        key: "flying",
        min: 3,
        max: 12,
        zero_off: true,
    },
    NumericRange {
        key: "repetition",
        min: 0,
        max: 999,
        zero_off: false,
    },
    NumericRange {
        key: "no_removal_limit",
        min: 0,
        max: 99_999,
        zero_off: false,
    },
    NumericRange {
        key: "endgame_no_removal_turns",
        min: 0,
        max: 99_999,
        zero_off: false,
    },
    NumericRange {
        key: "max_actions",
        min: 0,
        max: 1_000_000_000,
        zero_off: false,
    },
];

/// The allowed values of a numeric key, as error messages state them.
fn allowed(key: &str) -> String {
    NUMERIC
        .iter()
        .find(|r| r.key == key)
        .map_or_else(|| "a valid value".to_string(), NumericRange::describe)
}

fn named<T: Copy>(
    key: &'static str,
    v: &toml::Value,
    table: &[(&str, T)],
    allowed: &'static str,
) -> Result<T, RulesError> {
    table
        .iter()
        .find(|(n, _)| Some(*n) == v.as_str())
        .map(|(_, t)| *t)
        .ok_or_else(|| RulesError::BadValue {
            key,
            value: v.to_string(),
            allowed: allowed.to_string(),
        })
}

mod names {
    use super::*;
    pub const BOARD: &[(&str, BoardKind)] = &[
        ("plain", BoardKind::Plain),
        ("diagonal", BoardKind::Diagonal),
    ];
    pub const PLACEMENT: &[(&str, PlacementLines)] = &[
        ("capture", PlacementLines::Capture),
        ("record", PlacementLines::Record),
    ];
    pub const FULL: &[(&str, FullBoard)] = &[
        ("jare-removals", FullBoard::JareRemovals),
        ("remove-last-placed", FullBoard::RemoveLastPlaced),
        ("nothing", FullBoard::Nothing),
    ];
    pub const NO_JARE: &[(&str, NoJare)] = &[
        ("draw", NoJare::Draw),
        (
            "second-player-removes-first",
            NoJare::SecondPlayerRemovesFirst,
        ),
    ];
    pub const BLOCKED: &[(&str, Blocked)] = &[("loses", Blocked::Loses), ("freed", Blocked::Freed)];

    fn name_of<T: PartialEq>(table: &[(&'static str, T)], v: T) -> &'static str {
        table
            .iter()
            .find(|(_, t)| *t == v)
            .map(|(n, _)| *n)
            .unwrap_or("?")
    }
    pub fn placement_lines(v: PlacementLines) -> &'static str {
        name_of(PLACEMENT, v)
    }
    pub fn full_board(v: FullBoard) -> &'static str {
        name_of(FULL, v)
    }
    pub fn no_jare(v: NoJare) -> &'static str {
        name_of(NO_JARE, v)
    }
    pub fn blocked(v: Blocked) -> &'static str {
        name_of(BLOCKED, v)
    }
}

impl RulesFile {
    fn resolve(self) -> Result<Rules, RulesError> {
        let preset: Preset = self.preset.parse()?;
        let mut r = Rules::preset(preset);
        if let Some(v) = &self.pieces {
            r.pieces = int("pieces", v)?;
        }
        if let Some(v) = &self.board {
            r.board = named("board", v, names::BOARD, "\"plain\" or \"diagonal\"")?;
        }
        if let Some(v) = &self.placement_lines {
            r.placement_lines = named(
                "placement_lines",
                v,
                names::PLACEMENT,
                "\"capture\" or \"record\"",
            )?;
        }
        if let Some(v) = &self.full_board {
            r.full_board = named(
                "full_board",
                v,
                names::FULL,
                "\"jare-removals\", \"remove-last-placed\" or \"nothing\"",
            )?;
        }
        if let Some(v) = &self.no_jare {
            r.no_jare = named(
                "no_jare",
                v,
                names::NO_JARE,
                "\"draw\" or \"second-player-removes-first\"",
            )?;
        }
        if let Some(v) = &self.mill_protection {
            r.mill_protection = boolean("mill_protection", v)?;
        }
        if let Some(v) = &self.double_mill_removals {
            r.double_mill_removals = int("double_mill_removals", v)?;
        }
        if let Some(v) = &self.flying {
            r.flying = int("flying", v)?;
        }
        if let Some(v) = &self.blocked {
            r.blocked = named("blocked", v, names::BLOCKED, "\"loses\" or \"freed\"")?;
        }
        if let Some(v) = &self.no_return {
            r.no_return = boolean("no_return", v)?;
        }
        if let Some(v) = &self.repetition {
            r.repetition = int("repetition", v)?;
        }
        if let Some(v) = &self.no_removal_limit {
            r.no_removal_limit = int("no_removal_limit", v)?;
        }
        if let Some(v) = &self.endgame_no_removal_turns {
            r.endgame_no_removal_turns = int("endgame_no_removal_turns", v)?;
        }
        if let Some(v) = &self.max_actions {
            r.max_actions = int("max_actions", v)?;
        }
        r.validate()?;
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_match_the_table_in_rules_md() {
        let s = Rules::preset(Preset::Shax);
        assert_eq!(
            (
                s.pieces,
                s.board,
                s.placement_lines,
                s.full_board,
                s.mill_protection,
                s.flying,
                s.blocked,
                s.no_return
            ),
            (
                12,
                BoardKind::Plain,
                PlacementLines::Record,
                FullBoard::JareRemovals,
                false,
                0,
                Blocked::Freed,
                false
            )
        );
        assert_eq!((s.no_removal_limit, s.endgame_no_removal_turns), (50, 0));
        let f = Rules::preset(Preset::ShaxFlying);
        assert_eq!(
            (f.full_board, f.flying, f.blocked),
            (FullBoard::RemoveLastPlaced, 3, Blocked::Loses)
        );
        let n = Rules::preset(Preset::NineMensMorris);
        assert_eq!(
            (
                n.pieces,
                n.placement_lines,
                n.full_board,
                n.mill_protection,
                n.flying
            ),
            (9, PlacementLines::Capture, FullBoard::Nothing, true, 3)
        );
        let m = Rules::preset(Preset::Morabaraba);
        assert_eq!(
            (
                m.pieces,
                m.board,
                m.no_return,
                m.no_removal_limit,
                m.endgame_no_removal_turns
            ),
            (12, BoardKind::Diagonal, true, 0, 20)
        );
        for p in Preset::ALL {
            let r = Rules::preset(p);
            assert_eq!(
                (
                    r.no_jare,
                    r.double_mill_removals,
                    r.repetition,
                    r.max_actions
                ),
                (NoJare::Draw, 1, 3, 1000)
            );
        }
    }

    #[test]
    fn to_toml_round_trips_every_key() {
        let custom = Rules::from_toml(
            "preset = \"shax\"\npieces = 9\nboard = \"diagonal\"\nplacement_lines = \"capture\"\n\
             full_board = \"nothing\"\nno_jare = \"second-player-removes-first\"\nmill_protection = true\n\
             double_mill_removals = 2\nflying = 4\nblocked = \"loses\"\nno_return = true\nrepetition = 0\n\
             no_removal_limit = 7\nendgame_no_removal_turns = 8\nmax_actions = 0\n",
        )
        .unwrap();
        assert_eq!(Rules::from_toml(&custom.to_toml()).unwrap(), custom);
        assert_eq!(custom.name(), "shax+custom");
        for p in Preset::ALL {
            assert_eq!(
                Rules::from_toml(&Rules::preset(p).to_toml()).unwrap(),
                Rules::preset(p)
            );
        }
    }

    #[test]
    fn errors_name_the_key() {
        let cases = [
            ("preset = \"shax\"\nflying = 2\n", "flying"),
            ("preset = \"shax\"\npieces = 2\n", "pieces"),
            ("preset = \"shax\"\nboard = \"hex\"\n", "board"),
            ("preset = \"shax\"\ncolour = 1\n", "colour"),
            ("pieces = 9\n", "preset"),
            ("preset = \"chess\"\n", "chess"),
            ("preset = \"shax\"\npieces = \"nine\"\n", "pieces"),
            (
                "preset = \"shax\"\nmax_actions = 1000000001\n",
                "max_actions",
            ),
            ("preset = \"shax\"\nrepetition = -1\n", "repetition"),
        ];
        for (text, key) in cases {
            let e = Rules::from_toml(text).unwrap_err().to_string();
            assert!(e.contains(key), "{text:?} gave {e:?}");
        }
    }

    #[test]
    fn load_takes_presets_and_reports_unknown_names() {
        assert_eq!(
            Rules::load("morabaraba").unwrap(),
            Rules::preset(Preset::Morabaraba)
        );
        assert!(matches!(
            Rules::load("checkers"),
            Err(RulesError::UnknownRules(_))
        ));
        assert!(matches!(
            Rules::load("/no/such/rules.toml"),
            Err(RulesError::Io { .. })
        ));
    }
}
