//! MCTS-Solver (Winands et al. 2008): won and lost games found in the tree,
//! proven up it. See [`super::PuctConfig::solver`].

use super::{NONE, Puct, State};

/// What the solver has proven about a node, from its `mover`'s view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Proof {
    Unknown,
    Win,
    Loss,
}

impl Proof {
    /// The proven result (1 a win, -1 a loss).
    pub(super) fn value(self) -> Option<f32> {
        match self {
            Proof::Unknown => None,
            Proof::Win => Some(1.0),
            Proof::Loss => Some(-1.0),
        }
    }

    /// The same result from the other player's view.
    pub(super) fn flipped(self) -> Proof {
        match self {
            Proof::Unknown => Proof::Unknown,
            Proof::Win => Proof::Loss,
            Proof::Loss => Proof::Win,
        }
    }
}

impl Puct {
    /// A finished game's proof (a draw proves nothing), carried up the tree.
    pub(super) fn prove_terminal(&mut self, idx: u32) {
        let n = &mut self.nodes[idx as usize];
        let for_mover = if n.mover == n.to_act {
            n.terminal_value
        } else {
            -n.terminal_value
        };
        n.proof = if for_mover >= 1.0 {
            Proof::Win
        } else if for_mover <= -1.0 {
            Proof::Loss
        } else {
            return;
        };
        let parent = n.parent;
        self.prove_up(parent);
    }

    /// Proves `idx` and then its ancestors from their children's proofs,
    /// while there is something new to prove: won when the player to act
    /// has a proven win, lost when every action is a proven loss.
    fn prove_up(&mut self, mut idx: u32) {
        while idx != NONE {
            let n = self.nodes[idx as usize];
            if n.state != State::Expanded || n.proof != Proof::Unknown {
                return;
            }
            let kids = &self.nodes[n.children()];
            // The children's proofs are from the view of `n.to_act`.
            let for_chooser = if kids.iter().any(|c| c.proof == Proof::Win) {
                Proof::Win
            } else if kids.iter().all(|c| c.proof == Proof::Loss) {
                Proof::Loss
            } else {
                return;
            };
            self.nodes[idx as usize].proof = if n.mover == n.to_act {
                for_chooser
            } else {
                for_chooser.flipped()
            };
            idx = n.parent;
        }
    }

    /// Whether nothing is left to search at the root: the game is over
    /// there, or the solver proved its result.
    pub(super) fn root_settled(&self) -> bool {
        let root = &self.nodes[self.root as usize];
        root.state == State::Terminal || root.proof != Proof::Unknown
    }
}
