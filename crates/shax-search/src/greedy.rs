//! `greedy`: one turn of lookahead (a place or move plus the removals it
//! earns) on the static evaluation (the mill evaluation, or `eval=basic`);
//! ties broken by the seed.

use rand::SeedableRng;
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use shax_core::{Action, Color, KeyHistory, Position, Task};

use crate::eval::{EvalKind, WIN};
use crate::player::{Limits, PathHistory, Player, mix_seed};
use crate::spec::{PlayerSpec, SEED, SpecError};

/// Plays the action whose turn ends in the best static evaluation.
#[derive(Clone, Debug, Default)]
pub struct GreedyPlayer {
    seed: Option<u64>,
    eval: EvalKind,
}

impl GreedyPlayer {
    /// A greedy player; `seed` is mixed into every decision's seed.
    pub fn new(seed: Option<u64>) -> GreedyPlayer {
        GreedyPlayer {
            seed,
            eval: EvalKind::default(),
        }
    }

    /// From a `greedy[:seed=S][,eval=mill|basic|<file>.toml]` spec.
    ///
    /// # Errors
    ///
    /// [`SpecError`] for arguments or unknown parameters.
    pub fn from_spec(spec: &PlayerSpec) -> Result<GreedyPlayer, SpecError> {
        spec.check_no_args()?;
        spec.check_params(&[SEED.key, "eval"])?;
        let mut p = GreedyPlayer::new(spec.get(SEED)?);
        p.eval = crate::alphabeta::eval_param(spec)?;
        Ok(p)
    }
}

/// The value for `me` of the position after `me`'s action: the rest of the
/// turn (removals `me` still owes) is played out greedily.
fn turn_value(pos: &Position, me: Color, hist: &mut PathHistory<'_>, eval: &EvalKind) -> i32 {
    if let Some(o) = hist.outcome(pos) {
        return (o.value_for(me) * WIN as f32) as i32;
    }
    if pos.to_act() == me && pos.task() == Task::Remove {
        let mut best = i32::MIN;
        for a in &pos.legal_actions() {
            let mut child = *pos;
            child.play_unchecked(*a);
            let m = hist.push(*a, &child);
            best = best.max(turn_value(&child, me, hist, eval));
            hist.pop(m);
        }
        return best;
    }
    let v = eval.evaluate(pos);
    if pos.to_act() == me { v } else { -v }
}

impl Player for GreedyPlayer {
    fn spec(&self) -> String {
        let mut items = Vec::new();
        if let Some(s) = self.seed {
            items.push(format!("seed={s}"));
        }
        if self.eval != EvalKind::default() {
            items.push(format!("eval={}", self.eval.name()));
        }
        if items.is_empty() {
            "greedy".to_string()
        } else {
            format!("greedy:{}", items.join(","))
        }
    }

    fn choose(
        &mut self,
        pos: &Position,
        history: &KeyHistory,
        _limits: &Limits,
        seed: u64,
    ) -> Option<Action> {
        if history.outcome(pos).is_some() {
            return None;
        }
        let mut actions: Vec<Action> = pos.legal_actions().to_vec();
        let mut rng = SmallRng::seed_from_u64(mix_seed(seed, self.seed.unwrap_or(0)));
        actions.shuffle(&mut rng);
        let me = pos.to_act();
        let mut hist = PathHistory::new(history);
        let mut best: Option<(i32, Action)> = None;
        for a in actions {
            let mut child = *pos;
            child.play_unchecked(a);
            let m = hist.push(a, &child);
            let v = turn_value(&child, me, &mut hist, &self.eval);
            hist.pop(m);
            if best.is_none_or(|(b, _)| v > b) {
                best = Some((v, a));
            }
        }
        best.map(|(_, a)| a)
    }
}
