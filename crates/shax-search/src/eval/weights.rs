//! The mill evaluation's weights, one set per preset, in centi-pieces (one
//! piece is 100), and the one search setting that depends on the preset. A
//! rules file uses the set of the preset it names.
//!
//! "Moves" are a side's slides (empty points next to its pieces, counted per
//! piece); a piece is "stuck" when it has no empty neighbour. A "ready" open
//! line is two pieces and a hole that another own piece can slide into; a
//! "swing" is a piece of a complete mill that can step into a hole that closes
//! another line (a double mill: a removal every turn).

use shax_core::{Preset, Rules};

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
};

/// Shax: a blocked side is freed by the opponent, the board fills while
/// placing, and the first jare decides who removes first.
const SHAX: Weights = Weights {
    mob: 4,
    mob_cap: 20,
    stuck: -3,
    block: [-30, -10, 0],
    place_mob: 3,
    place_stuck: 0,
    junction: 5,
    two_ready: 35,
    lmr: false,
    jare_now: 45,
    jare: 40,
    jare_fork: 25,
    ..BLOCK_LOSES
};

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
