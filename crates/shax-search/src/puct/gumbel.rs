//! The Gumbel root: Gumbel-top-k sampling of the root's candidates and
//! sequential halving among them, scored by `g + logit + sigma(completed Q)`
//! ("Policy improvement by planning with Gumbel", Danihelka et al. 2022).

use rand::Rng;

use super::Puct;

/// Gumbel root settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GumbelConfig {
    /// Actions sampled at the root (Gumbel-top-k), halved each phase.
    pub considered: usize,
    /// `c_visit` of the monotone transform of Q.
    pub c_visit: f32,
    /// `c_scale` of the monotone transform of Q.
    pub c_scale: f32,
    /// Scale of the Gumbel noise: 1 samples the action from the improved
    /// policy (Gumbel MuZero's self-play), `t` from it at temperature `t`
    /// (the noise `t * g` over `logit + sigma(Q)`), 0 makes the search and
    /// its choice deterministic: the candidates with the best logits, and
    /// the best of them by `logit + sigma(Q)` (Gumbel MuZero's final choice
    /// without noise).
    pub temperature: f32,
}

impl Default for GumbelConfig {
    fn default() -> GumbelConfig {
        GumbelConfig {
            considered: 16,
            c_visit: 50.0,
            c_scale: 0.1,
            temperature: 1.0,
        }
    }
}

impl Puct {
    pub(super) fn start_gumbel(&mut self, g: GumbelConfig) {
        let range = self.nodes[self.root as usize].children();
        let t = g.temperature.max(0.0);
        self.gumbel = range
            .clone()
            .map(|_| {
                if t == 0.0 {
                    return 0.0;
                }
                let u: f32 = self.rng.random_range(1e-10..1.0);
                -t * (-u.ln()).ln()
            })
            .collect();
        let first = range.start;
        let mut cands: Vec<u32> = range.map(|c| c as u32).collect();
        let score = |s: &Puct, c: u32| s.gumbel[c as usize - first] + s.nodes[c as usize].logit;
        cands.sort_by(|&a, &b| score(self, b).total_cmp(&score(self, a)));
        cands.truncate(g.considered.max(1));
        self.candidates = cands;
        self.schedule.clear();
        let remaining = self.config.simulations.saturating_sub(self.done()).max(1);
        let phases = (self.candidates.len() as f32).log2().ceil().max(1.0) as u32;
        self.phase_budget = (remaining / phases).max(self.candidates.len() as u32);
        self.schedule_phase();
    }

    /// Queues this phase's visits: equal visits for every candidate, round robin.
    fn schedule_phase(&mut self) {
        let per = (self.phase_budget / self.candidates.len() as u32).max(1);
        for _ in 0..per {
            self.schedule.extend(self.candidates.iter().copied());
        }
    }

    /// Gumbel score of a root child: `g + logit + sigma(q-hat)`.
    pub(super) fn gumbel_score(&self, c: u32, sigma: &[f32]) -> f32 {
        let first = self.nodes[self.root as usize].first_child as usize;
        let k = c as usize - first;
        self.gumbel[k] + self.nodes[c as usize].logit + sigma[k]
    }

    /// The next root child under sequential halving.
    pub(super) fn next_gumbel_child(&mut self) -> u32 {
        if self.schedule.is_empty() {
            if self.candidates.len() > 1 {
                let sigma = self.sigma_completed_q();
                let mut cands = std::mem::take(&mut self.candidates);
                cands.sort_by(|&a, &b| {
                    self.gumbel_score(b, &sigma)
                        .total_cmp(&self.gumbel_score(a, &sigma))
                });
                cands.truncate(cands.len().div_ceil(2));
                self.candidates = cands;
            }
            self.schedule_phase();
        }
        self.schedule.pop_front().expect("a scheduled candidate")
    }

    /// `sigma(completed Q)` for every root child, in child order: visited
    /// children use their Q, unvisited the mixed value; rescaled to [0, 1]
    /// by min and max, then `(c_visit + max N) * c_scale * q`.
    pub(super) fn sigma_completed_q(&self) -> Vec<f32> {
        let g = self.config.gumbel.unwrap_or_default();
        let root = &self.nodes[self.root as usize];
        let kids = &self.nodes[root.children()];
        let total: u32 = kids.iter().map(|n| n.visits).sum();
        let max_n = kids.iter().map(|n| n.visits).max().unwrap_or(0);
        // v_mix: the network's root value mixed with the prior-weighted Q of visited children.
        let raw_value = if root.visits > 0 {
            self.root_value()
        } else {
            0.0
        };
        let (mut pq, mut pw) = (0.0f32, 0.0f32);
        for n in kids.iter().filter(|n| n.visits > 0) {
            pq += n.prior * n.q();
            pw += n.prior;
        }
        let v_mix = if total > 0 && pw > 0.0 {
            (raw_value + total as f32 * pq / pw) / (1.0 + total as f32)
        } else {
            raw_value
        };
        let completed: Vec<f32> = kids
            .iter()
            .map(|n| if n.visits > 0 { n.q() } else { v_mix })
            .collect();
        let lo = completed.iter().copied().fold(f32::INFINITY, f32::min);
        let hi = completed.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let scale = (g.c_visit + max_n as f32) * g.c_scale;
        completed
            .iter()
            .map(|&q| {
                if hi > lo {
                    scale * (q - lo) / (hi - lo)
                } else {
                    scale * 0.5
                }
            })
            .collect()
    }
}
