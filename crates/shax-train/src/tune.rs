//! Fitting the mill evaluation's weights to self-play games (Texel's
//! method): the evaluation is linear in its weights
//! ([`shax_search::eval::term_counts`]), so the weights that best predict
//! the games' results, `sigmoid(k * eval)` against the result for the player
//! to act (1, 0.5, 0), come from a regression on the positions' term counts.
//! `piece` stays fixed (100: the scale); `k` is fitted first and again
//! between rounds of Adam on the others. Every tenth game is held out, and
//! the report gives the loss before and after on both parts, so a fit that
//! only learns its own games shows.

use std::path::PathBuf;

use shax_core::{Position, Preset, Task};
use shax_search::eval::{LINEAR_TERMS, Weights, term_counts};

use crate::shard::{GameData, Shard, ShardError, read_shard};

const TERMS: usize = LINEAR_TERMS.len();

/// One position: its term counts and the target for its player to act.
#[derive(Clone, Debug)]
pub struct TuneSample {
    counts: [f64; TERMS],
    target: f64,
}

impl TuneSample {
    /// `pos`'s counts with `target` (0 to 1: loss to win, for its player to act).
    pub fn new(pos: &Position, target: f64) -> TuneSample {
        TuneSample {
            counts: term_counts(pos).map(f64::from),
            target,
        }
    }

    fn eval(&self, w: &[f64; TERMS]) -> f64 {
        self.counts.iter().zip(w).map(|(c, w)| c * w).sum()
    }
}

/// The positions of a set of shards, split into fitted and held-out games.
#[derive(Debug, Default)]
pub struct TuneData {
    /// The preset the shards' rules name (all must agree).
    pub preset: Option<Preset>,
    /// Positions of the fitted games.
    pub train: Vec<TuneSample>,
    /// Positions of every tenth game.
    pub held_out: Vec<TuneSample>,
    /// Games read.
    pub games: usize,
}

/// Why shards could not be used.
#[derive(Debug, thiserror::Error)]
pub enum TuneError {
    /// A shard could not be read.
    #[error(transparent)]
    Shard(#[from] ShardError),
    /// The shards are of different games.
    #[error("{path}: the shards mix rule sets ({a:?} and {b:?}); tune one preset at a time")]
    MixedRules {
        /// The shard that differs.
        path: PathBuf,
        /// The first preset seen.
        a: Preset,
        /// This shard's.
        b: Preset,
    },
    /// Too few games to fit and hold some out.
    #[error(
        "{games} games to fit: at least 10 are needed, every tenth is held out (no shards, or \
         only networks older than the step asked for, give none)"
    )]
    TooFew {
        /// Games read.
        games: usize,
    },
}

impl TuneData {
    /// Reads `paths`, keeping the games of networks at `min_step` or later.
    /// The target mixes the result with the search's root value by
    /// `search_weight` (0: the result alone). Removals and freeing moves are
    /// left out (not quiet positions).
    pub fn read(
        paths: &[PathBuf],
        min_step: u64,
        search_weight: f64,
    ) -> Result<TuneData, TuneError> {
        let mut data = TuneData::default();
        for path in paths {
            let shard = read_shard(path)?;
            if shard.net_step < min_step {
                continue;
            }
            let preset = shard.rules.preset;
            match data.preset {
                Some(a) if a != preset => {
                    return Err(TuneError::MixedRules {
                        path: path.clone(),
                        a,
                        b: preset,
                    });
                }
                _ => data.preset = Some(preset),
            }
            for game in &shard.games {
                data.push_game(&shard, game, search_weight);
            }
        }
        if data.train.is_empty() || data.held_out.is_empty() {
            return Err(TuneError::TooFew { games: data.games });
        }
        Ok(data)
    }

    /// Adds the quiet positions of `game` (of `shard`), every tenth game to
    /// the held-out part.
    fn push_game(&mut self, shard: &Shard, game: &GameData, search_weight: f64) {
        let held = self.games % 10 == 9;
        self.games += 1;
        for ex in shard.game_examples(game) {
            if matches!(ex.position.task(), Task::Remove | Task::Free) {
                continue;
            }
            // The expected score of the trainer's value target: win + half a draw.
            let [win, draw, _] = ex.wdl_target(search_weight as f32);
            let s = TuneSample::new(&ex.position, f64::from(win + 0.5 * draw));
            if held {
                self.held_out.push(s);
            } else {
                self.train.push(s);
            }
        }
    }
}

/// What a fit found.
#[derive(Clone, Debug)]
pub struct TuneReport {
    /// The starting weights (the preset's).
    pub start: Weights,
    /// The fitted weights (rounded to centi-pieces).
    pub fitted: Weights,
    /// The fitted scale: a win's probability is `sigmoid(k * eval)`.
    pub k: f64,
    /// Mean squared error of the start weights: fitted games, held-out games.
    pub before: (f64, f64),
    /// The same with the fitted weights.
    pub after: (f64, f64),
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Mean squared error of `sigmoid(k * eval)` against the targets.
fn loss(samples: &[TuneSample], w: &[f64; TERMS], k: f64) -> f64 {
    let sum: f64 = samples
        .iter()
        .map(|s| (s.target - sigmoid(k * s.eval(w))).powi(2))
        .sum();
    sum / samples.len().max(1) as f64
}

/// The `k` that fits `w` best (golden-section search on a log scale: one
/// pass over the samples per step, the other inner point carried over).
fn fit_k(samples: &[TuneSample], w: &[f64; TERMS]) -> f64 {
    let f = |lk: f64| loss(samples, w, lk.exp());
    let (mut a, mut b) = ((1e-5f64).ln(), (1.0f64).ln());
    let g = (5f64.sqrt() - 1.0) / 2.0;
    let (mut c, mut d) = (b - g * (b - a), a + g * (b - a));
    let (mut fc, mut fd) = (f(c), f(d));
    for _ in 0..60 {
        if fc < fd {
            (b, d, fd) = (d, c, fc);
            c = b - g * (b - a);
            fc = f(c);
        } else {
            (a, c, fc) = (c, d, fd);
            d = a + g * (b - a);
            fd = f(d);
        }
    }
    ((a + b) / 2.0).exp()
}

/// The loss's gradient in the weights.
fn gradient(samples: &[TuneSample], w: &[f64; TERMS], k: f64) -> [f64; TERMS] {
    let mut g = [0.0; TERMS];
    for s in samples {
        let p = sigmoid(k * s.eval(w));
        let d = -2.0 * (s.target - p) * p * (1.0 - p) * k;
        for (g, c) in g.iter_mut().zip(&s.counts) {
            *g += d * c;
        }
    }
    let n = samples.len().max(1) as f64;
    g.map(|x| x / n)
}

/// Fits the weights of `data`'s preset: `rounds` rounds of `steps` Adam
/// steps (step size in centi-pieces), `k` refitted before each.
pub fn fit_weights(data: &TuneData, start: &Weights, rounds: usize, steps: usize) -> TuneReport {
    let w0 = start.linear().map(f64::from);
    let k0 = fit_k(&data.train, &w0);
    let before = (loss(&data.train, &w0, k0), loss(&data.held_out, &w0, k0));
    let mut w = w0;
    let (mut m, mut v) = ([0.0; TERMS], [0.0; TERMS]);
    let (lr, b1, b2) = (1.0, 0.9, 0.999);
    let mut t = 0;
    for round in 0..rounds {
        // The first round starts from the start weights, whose `k` is `k0`.
        let k = if round == 0 {
            k0
        } else {
            fit_k(&data.train, &w)
        };
        for _ in 0..steps {
            t += 1;
            let g = gradient(&data.train, &w, k);
            // `piece` (index 0) is the scale: fixed.
            for i in 1..TERMS {
                m[i] = b1 * m[i] + (1.0 - b1) * g[i];
                v[i] = b2 * v[i] + (1.0 - b2) * g[i] * g[i];
                let mh = m[i] / (1.0 - b1.powi(t));
                let vh = v[i] / (1.0 - b2.powi(t));
                w[i] -= lr * mh / (vh.sqrt() + 1e-12);
            }
        }
    }
    let rounded = w.map(|x| x.round() as i32);
    let wr = rounded.map(f64::from);
    let k = fit_k(&data.train, &wr);
    TuneReport {
        start: *start,
        fitted: start.with_linear(rounded),
        k,
        before,
        after: (loss(&data.train, &wr, k), loss(&data.held_out, &wr, k)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng, rngs::SmallRng};
    use shax_core::Rules;
    use shax_search::eval::weights_for;

    /// Positions whose result follows `true_w` exactly (target = the
    /// sigmoid of its evaluation): the fit moves towards `true_w`.
    #[test]
    fn the_fit_recovers_weights_that_explain_the_results() {
        let rules = Rules::preset(Preset::NineMensMorris);
        let start = *weights_for(&rules);
        let mut truth = start;
        truth.mill = 60;
        truth.two_place = 40;
        let tw = truth.linear().map(f64::from);
        let mut data = TuneData::default();
        let mut rng = SmallRng::seed_from_u64(7);
        for game in 0..60 {
            let mut p = Position::new(rules);
            for _ in 0..40 {
                let acts = p.legal_actions();
                if acts.is_empty() {
                    break;
                }
                if p.task() != Task::Remove {
                    let mut s = TuneSample::new(&p, 0.0);
                    s.target = sigmoid(0.01 * s.eval(&tw));
                    if game % 10 == 9 {
                        data.held_out.push(s);
                    } else {
                        data.train.push(s);
                    }
                }
                p.play_unchecked(acts[rng.random_range(0..acts.len())]);
            }
        }
        let r = fit_weights(&data, &start, 3, 300);
        assert!(
            r.after.0 < r.before.0 / 4.0,
            "{:?} -> {:?}",
            r.before,
            r.after
        );
        assert!(
            r.after.1 < r.before.1,
            "held out {:?} -> {:?}",
            r.before,
            r.after
        );
        assert!(
            (r.fitted.mill - 60).abs() < (start.mill - 60).abs(),
            "mill {} (start {}, truth 60)",
            r.fitted.mill,
            start.mill
        );
        assert_eq!(r.fitted.piece, 100);
        assert_eq!(r.fitted.mob_cap, start.mob_cap);
    }
}
