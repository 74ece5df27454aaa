//! The mill evaluation's weights, one set per preset, in centi-pieces (one
//! piece is 100), and the search settings that depend on the preset. A
//! rules file uses the set of the preset it names.
//!
//! "Moves" are a side's slides (empty points next to its pieces, counted per
//! piece); a piece is "stuck" when it has no empty neighbour. A "ready" open
//! line is two pieces and a hole that another own piece can slide into; a
//! "swing" is a piece of a complete mill that can step into a hole that closes
//! another line (a double mill: a removal every turn).

use shax_core::{Preset, Rules};
use std::fmt::Write as _;

/// One preset's weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Weights {
    /// A piece on the board or in hand.
    pub piece: i32,
    /// Per move while moving (up to `mob_cap` moves).
    pub mob: i32,
    /// Moves beyond this count no more.
    pub mob_cap: i32,
    /// Per stuck piece while moving.
    pub stuck: i32,
    /// A moving side with no move, one move, two moves (added to the above).
    pub block: [i32; 3],
    /// Per move (empty neighbour) while placing.
    pub place_mob: i32,
    /// Per stuck piece while placing.
    pub place_stuck: i32,
    /// Per piece on a junction (a point with four or more neighbours).
    pub junction: i32,
    /// A complete line.
    pub mill: i32,
    /// A complete line that can open and close again (moving phase).
    pub mill_open: i32,
    /// Two in a line, hole empty, while placing or flying.
    pub two_place: i32,
    /// Two in a line whose hole another own piece can reach (moving).
    pub two_ready: i32,
    /// A ready line whose hole no enemy piece can reach.
    pub two_unguarded: i32,
    /// Two in a line that no own piece can close yet (moving).
    pub two: i32,
    /// One piece and two empty points in a line.
    pub one: i32,
    /// Per swing (double-mill move), at most two counted.
    pub swing: i32,
    /// Two or more holes that close lines while placing (a fork).
    pub fork: i32,
    /// The player to act can close a line that removes now.
    pub threat_now: i32,
    /// Shax: the player to act can form the first jare now.
    pub jare_now: i32,
    /// Shax: having made the first jare.
    pub jare: i32,
    /// Shax: two holes that would make the first jare while placing.
    pub jare_fork: i32,
    /// Movement turns left on a draw counter below which the score shrinks
    /// towards a draw, proportionally; 0 off.
    pub counter_fade: i32,
    /// Whether `alphabeta` reduces late quiet actions (late-move reductions)
    /// by default: measured to pay off in Nine Men's Morris, to lose
    /// strength in Shax.
    pub lmr: bool,
    /// What a draw is worth to Black in `alphabeta`'s search, in
    /// centi-pieces (to White, the negative). In Shax White wins most games
    /// between equal players, so a draw is a gain for Black and a loss for
    /// White; elsewhere 0.
    pub black_draw: i32,
}

/// Where a blocked side loses (every preset but Shax).
const BLOCK_LOSES: Weights = Weights {
    piece: 100,
    mob: 10,
    mob_cap: 24,
    stuck: -6,
    block: [-300, -110, -40],
    place_mob: 6,
    place_stuck: -20,
    junction: 4,
    mill: 15,
    mill_open: 25,
    two_place: 14,
    two_ready: 50,
    two_unguarded: 15,
    two: 8,
    one: 2,
    swing: 70,
    fork: 40,
    threat_now: 60,
    jare_now: 0,
    jare: 0,
    jare_fork: 0,
    counter_fade: 10,
    lmr: true,
    black_draw: 0,
};

/// Shax: a blocked side is freed by the opponent, the board fills while
/// placing, and the first jare decides who removes first. Tuned by self-play
/// matches (SPSA, `scripts/spsa-eval.py`: 3,600 iterations, 14,400 games at
/// 25,000 nodes a decision) from a hand-set start; docs/EXPERIMENTS.md has
/// the run and what it gained. A draw is worth a piece to Black: measured
/// with the table's buckets against the build of commit 67c7f3f.
const SHAX: Weights = Weights {
    piece: 100,
    mob: 11,
    mob_cap: 20,
    stuck: -8,
    block: [-14, -10, 4],
    place_mob: 8,
    place_stuck: 12,
    junction: 10,
    mill: 9,
    mill_open: 27,
    two_place: 6,
    two_ready: 64,
    two_unguarded: 16,
    two: 14,
    one: 0,
    swing: 63,
    fork: 37,
    threat_now: 81,
    jare_now: 58,
    jare: 91,
    jare_fork: 34,
    counter_fade: 10,
    lmr: false,
    black_draw: 100,
};

/// The names of the weights the evaluation is linear in, in the order of
/// [`Weights::linear`]. The evaluation (before its fade towards a draw) is
/// the sum of each weight times a count of the position, so the weights can
/// be fitted by a regression on those counts (`shax tune-eval`). `mob_cap`,
/// `counter_fade`, `lmr` and `black_draw` are settings, not terms.
pub const LINEAR_TERMS: [&str; 22] = [
    "piece",
    "mob",
    "stuck",
    "block0",
    "block1",
    "block2",
    "place_mob",
    "place_stuck",
    "junction",
    "mill",
    "mill_open",
    "two_place",
    "two_ready",
    "two_unguarded",
    "two",
    "one",
    "swing",
    "fork",
    "threat_now",
    "jare_now",
    "jare",
    "jare_fork",
];

impl Weights {
    /// The linear weights, in the order of [`LINEAR_TERMS`].
    pub fn linear(&self) -> [i32; LINEAR_TERMS.len()] {
        [
            self.piece,
            self.mob,
            self.stuck,
            self.block[0],
            self.block[1],
            self.block[2],
            self.place_mob,
            self.place_stuck,
            self.junction,
            self.mill,
            self.mill_open,
            self.two_place,
            self.two_ready,
            self.two_unguarded,
            self.two,
            self.one,
            self.swing,
            self.fork,
            self.threat_now,
            self.jare_now,
            self.jare,
            self.jare_fork,
        ]
    }

    /// These weights with the linear ones replaced by `v` (in the order of
    /// [`LINEAR_TERMS`]); the settings stay.
    pub fn with_linear(&self, v: [i32; LINEAR_TERMS.len()]) -> Weights {
        Weights {
            piece: v[0],
            mob: v[1],
            stuck: v[2],
            block: [v[3], v[4], v[5]],
            place_mob: v[6],
            place_stuck: v[7],
            junction: v[8],
            mill: v[9],
            mill_open: v[10],
            two_place: v[11],
            two_ready: v[12],
            two_unguarded: v[13],
            two: v[14],
            one: v[15],
            swing: v[16],
            fork: v[17],
            threat_now: v[18],
            jare_now: v[19],
            jare: v[20],
            jare_fork: v[21],
            ..*self
        }
    }
}

/// The weights of `rules`' preset.
pub fn weights_for(rules: &Rules) -> &'static Weights {
    match rules.preset {
        Preset::Shax => &SHAX,
        Preset::ShaxFlying => &SHAX_FLYING,
        Preset::NineMensMorris => &NINE_MENS_MORRIS,
        Preset::Morabaraba => &MORABARABA,
    }
}

/// Shax with flying: a blocked side loses, lines while placing are recorded.
const SHAX_FLYING: Weights = Weights {
    jare_now: 45,
    jare: 40,
    jare_fork: 25,
    ..BLOCK_LOSES
};

const NINE_MENS_MORRIS: Weights = BLOCK_LOSES;

const MORABARABA: Weights = BLOCK_LOSES;

/// A weights file (`alphabeta:eval=<file.toml>`): `name = value` lines for
/// any of the linear weights ([`LINEAR_TERMS`]), in centi-pieces; the
/// weights it does not name stay those of the preset played. What
/// `shax tune-eval --out` writes, to be tried in matches before it becomes a
/// preset's set here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WeightsFile {
    /// Where it was read from (the spec names it).
    pub path: String,
    overrides: [Option<i32>; LINEAR_TERMS.len()],
}

impl WeightsFile {
    /// Reads and checks the file at `path`.
    ///
    /// # Errors
    ///
    /// A message naming the file and what is wrong: unreadable, not TOML,
    /// an unknown weight, a value that is not an integer.
    pub fn read(path: &str) -> Result<WeightsFile, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        WeightsFile::parse(path, &text)
    }

    /// Parses `text`, read from `path`.
    ///
    /// # Errors
    ///
    /// As [`WeightsFile::read`].
    pub fn parse(path: &str, text: &str) -> Result<WeightsFile, String> {
        let table: toml::Table = text.parse().map_err(|e| format!("{path}: {e}"))?;
        let mut overrides = [None; LINEAR_TERMS.len()];
        for (key, value) in &table {
            let i = LINEAR_TERMS.iter().position(|n| n == key).ok_or_else(|| {
                format!(
                    "{path}: unknown weight `{key}` (the weights: {})",
                    LINEAR_TERMS.join(", ")
                )
            })?;
            let v = value
                .as_integer()
                .and_then(|v| i32::try_from(v).ok())
                .ok_or_else(|| format!("{path}: `{key}` must be an integer (centi-pieces)"))?;
            overrides[i] = Some(v);
        }
        Ok(WeightsFile {
            path: path.to_string(),
            overrides,
        })
    }

    /// `base` with the file's weights in place of its own.
    pub fn apply(&self, base: &Weights) -> Weights {
        let mut v = base.linear();
        for (v, o) in v.iter_mut().zip(self.overrides) {
            if let Some(o) = o {
                *v = o;
            }
        }
        base.with_linear(v)
    }
}

/// `w`'s linear weights as a weights file.
pub fn weights_file_text(w: &Weights) -> String {
    let mut s = String::new();
    for (name, v) in LINEAR_TERMS.iter().zip(w.linear()) {
        let _ = writeln!(s, "{name} = {v}");
    }
    s
}
