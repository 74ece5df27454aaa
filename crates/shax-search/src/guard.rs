//! A tactical guard for the network player (`net:...,guard=N`): after the
//! tree search has chosen, an alpha-beta search of `N` nodes looks at the
//! root. The network's choice stands unless the alpha-beta finds it worse
//! than its own best by more than a margin; then the network's next choice
//! within the margin is played, or the alpha-beta's best when none is.
//!
//! The network judges structure well and short forcing lines badly: a
//! blockade five turns away while placing, a win against three flying pieces.
//! Alpha-beta is the other way round. The guard keeps the network's play and
//! lets the alpha-beta veto only what it sees losing (by default a piece and
//! a half, or a forced result). Against a one-second alpha-beta in Nine
//! Men's Morris a 100,000-node guard measured no gain: what that opponent
//! sees lies deeper. A 500,000-node guard, which fits the time budget since
//! the evaluation cache, cut the Nine Men's Morris master's losses to it
//! from 15 to 11 in 200 games (docs/EXPERIMENTS.md), and that master ships
//! with it.
//!
//! Where the player is already behind, a forced loss often lies just past
//! what the guard sees; [`Guard::with_behind`] has a search of a larger
//! budget look at the choice there, and only there (6% more time a decision
//! for that master at four times the nodes). It measured no fewer losses,
//! so the shipped master goes without.

use std::time::Instant;

use shax_core::{Action, KeyHistory, Position};

use crate::alphabeta::AlphaBeta;
use crate::eval::{WIN, WIN_BOUND};
use crate::player::{Limits, Player};
use crate::puct::RootStats;

/// How many of the network's choices the guard may score: the chosen one
/// and the next most visited.
const PREFERRED: usize = 4;

/// The alpha-beta that reviews a network player's choices.
pub struct Guard {
    ab: AlphaBeta,
    nodes: u64,
    /// The second look's budget once the first search finds the player
    /// [`Guard::BEHIND`] or more behind (at most `nodes`: no second look).
    behind_nodes: u64,
    margin: i32,
    /// Nodes searched by the last review.
    searched: u64,
}

impl Guard {
    /// The margin by default, in centi-pieces: a piece and a half.
    pub const DEFAULT_MARGIN: i32 = 150;

    /// Behind by this much (centi-pieces: three pieces) or more, short of a
    /// proven loss, a guard [`with_behind`](Guard::with_behind) looks again
    /// with its larger budget.
    pub const BEHIND: i32 = 300;

    /// A guard searching with the preset's mill evaluation, each of its
    /// searches (the root's, and one for each choice it scores) up to `nodes`
    /// nodes, vetoing choices more than `margin` centi-pieces worse
    /// than its best.
    pub fn new(nodes: u64, margin: i32) -> Guard {
        Guard {
            ab: AlphaBeta::new(None, None),
            nodes: nodes.max(1),
            behind_nodes: 0,
            margin: margin.max(0),
            searched: 0,
        }
    }

    /// The same guard, where its first search finds the player to act
    /// [`Guard::BEHIND`] or more behind and not yet lost by force, searching
    /// again with up to `nodes` nodes to veto a choice that loses by force.
    pub fn with_behind(mut self, nodes: u64) -> Guard {
        self.behind_nodes = nodes;
        self
    }

    /// The action to play at `pos` (the game not over): the first of
    /// `preferred` (the network's choices, best first) that scores within the
    /// margin of the alpha-beta's best, else the alpha-beta's best.
    /// `preferred` empty: the alpha-beta's best. Then, behind, the second
    /// look of [`Guard::with_behind`]. At `cutoff` the searches stop with
    /// what they have (a server's time limit).
    pub fn review(
        &mut self,
        pos: &Position,
        history: &KeyHistory,
        preferred: &[Action],
        seed: u64,
        cutoff: Option<Instant>,
    ) -> Option<Action> {
        let limits = Limits {
            nodes: Some(self.nodes),
            cutoff,
            ..Limits::NONE
        };
        let Some(best) = self.ab.choose(pos, history, &limits, seed) else {
            return preferred.first().copied();
        };
        let info = self
            .ab
            .info()
            .expect("a search that chose reports its info");
        self.searched = info.nodes;
        let floor = info.score.saturating_sub(self.margin);
        let mut choice = best;
        for &a in preferred {
            if a == best || self.score_of(pos, history, a, info.depth, &limits, seed) >= floor {
                choice = a;
                break;
            }
        }
        if self.behind_nodes > self.nodes && (-WIN_BOUND + 1..=-Self::BEHIND).contains(&info.score)
        {
            let limits = Limits {
                nodes: Some(self.behind_nodes),
                ..limits
            };
            choice = self.second_look(pos, history, choice, &limits, seed);
        }
        Some(choice)
    }

    /// Where the player is behind: `choice` stands unless a search of the
    /// larger budget proves it lost and finds the position itself not lost
    /// (its best then). No margin: behind, the alpha-beta's small preferences
    /// are worth less than the network's, only a forced loss is vetoed.
    fn second_look(
        &mut self,
        pos: &Position,
        history: &KeyHistory,
        choice: Action,
        limits: &Limits,
        seed: u64,
    ) -> Action {
        // The table keeps what the first search found: its depths come back
        // cheaply.
        let best = self.ab.choose(pos, history, limits, seed);
        let info = self.ab.info().unwrap_or_default();
        self.searched += info.nodes;
        match best {
            Some(best)
                if best != choice
                    && info.score > -WIN_BOUND
                    && self.score_of(pos, history, choice, info.depth, limits, seed)
                        <= -WIN_BOUND =>
            {
                best
            }
            _ => choice,
        }
    }

    /// The alpha-beta's score of playing `a` at `pos`, for the player to act
    /// there, searched as deep as the root's last finished iteration
    /// (`depth` turns, the turn `a` ends included).
    fn score_of(
        &mut self,
        pos: &Position,
        history: &KeyHistory,
        a: Action,
        depth: u32,
        limits: &Limits,
        seed: u64,
    ) -> i32 {
        let me = pos.to_act();
        let mut child = *pos;
        child.play_unchecked(a);
        let mut h = history.clone();
        h.push(a, &child);
        if let Some(outcome) = h.outcome(&child) {
            return outcome.value_for(me) as i32 * WIN;
        }
        let same_turn = child.to_act() == me;
        let limits = Limits {
            depth: Some(if same_turn { depth } else { depth - 1 }.max(1)),
            ..*limits
        };
        self.ab.choose(&child, &h, &limits, seed);
        let info = self.ab.info().unwrap_or_default();
        self.searched += info.nodes;
        let score = info.score;
        if same_turn { score } else { -score }
    }

    /// The alpha-beta nodes the last review searched, its choices' included.
    pub fn searched(&self) -> u64 {
        self.searched
    }

    /// Forgets the alpha-beta's table and history (a new game).
    pub fn reset(&mut self) {
        self.ab.reset();
    }
}

/// The network's choices for the guard, best first: `chosen`, then the
/// other visited actions by visits, [`PREFERRED`] in all.
pub(crate) fn preferred(stats: &RootStats, chosen: Action) -> Vec<Action> {
    let mut rest: Vec<(u32, Action)> = stats
        .actions
        .iter()
        .zip(&stats.visits)
        .filter(|&(&a, &v)| a != chosen && v > 0)
        .map(|(&a, &v)| (v, a))
        .collect();
    rest.sort_by_key(|&(v, _)| std::cmp::Reverse(v));
    std::iter::once(chosen)
        .chain(rest.into_iter().map(|(_, a)| a))
        .take(PREFERRED)
        .collect()
}
