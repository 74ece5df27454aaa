//! The replay window over the newest shards, rebuilt from disk at will, and
//! training batches sampled from it uniformly, each example under a random
//! one of the 16 board symmetries.

use std::collections::{HashSet, VecDeque};
use std::path::{Path, PathBuf};

use rand::Rng;
use shax_core::{POLICY_SIZE, Position, Rules, Symmetry};
use shax_nn::{MATERIAL_TARGETS, encode_batch};

use crate::config::TrainSection;
use crate::selfplay::SelfPlayStats;
use crate::shard::{Example, list_shards, read_shard};

/// The newest positions on disk, as training examples.
#[derive(Debug, Default)]
pub struct ReplayWindow {
    shards: VecDeque<(PathBuf, Vec<Example>)>,
    seen: HashSet<PathBuf>,
    total: u64,
    in_window: u64,
}

impl ReplayWindow {
    /// An empty window.
    pub fn new() -> ReplayWindow {
        ReplayWindow::default()
    }

    /// Reads the shards of `dir` not read yet (oldest first), keeps the newest
    /// `cfg.window(total)` positions, and returns what the new shards hold.
    /// A shard that cannot be read, is damaged or is for other rules is
    /// skipped with a warning naming it (through `warn`), never a panic.
    pub fn refresh(
        &mut self,
        dir: &Path,
        rules: &Rules,
        cfg: &TrainSection,
        warn: &mut dyn FnMut(String),
    ) -> SelfPlayStats {
        let mut fresh = SelfPlayStats::default();
        for path in list_shards(dir) {
            if self.seen.contains(&path) {
                continue;
            }
            self.seen.insert(path.clone());
            let shard = match read_shard(&path) {
                Ok(s) => s,
                Err(e) => {
                    warn(format!("warning: skipping {e}"));
                    continue;
                }
            };
            if shard.rules != *rules {
                warn(format!(
                    "warning: skipping shard {}: played under other rules ({})",
                    path.display(),
                    shard.rules.name()
                ));
                continue;
            }
            for g in &shard.games {
                fresh.count_game(g);
            }
            fresh.sims += shard.sims;
            fresh.seconds += f64::from(shard.seconds);
            let examples = shard.examples();
            self.total += examples.len() as u64;
            self.in_window += examples.len() as u64;
            self.shards.push_back((path, examples));
            // Bounded memory while reading a long run's shards: the window never exceeds window_max.
            self.trim(cfg.window_max);
        }
        self.trim(cfg.window(self.total));
        fresh
    }

    /// Drops the oldest shards while the rest hold at least `keep` positions.
    fn trim(&mut self, keep: u64) {
        while let Some((_, front)) = self.shards.front() {
            let n = front.len() as u64;
            if self.in_window - n < keep || self.shards.len() == 1 {
                break;
            }
            self.in_window -= n;
            self.shards.pop_front();
        }
    }

    /// Positions in the window.
    pub fn len(&self) -> u64 {
        self.in_window
    }

    /// Whether the window is empty.
    pub fn is_empty(&self) -> bool {
        self.in_window == 0
    }

    /// Positions read from all shards so far.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Shards in the window.
    pub fn shard_count(&self) -> usize {
        self.shards.len()
    }

    /// `n` examples drawn uniformly (with replacement) from the window.
    pub fn sample<'a, R: Rng>(&'a self, rng: &mut R, n: usize) -> Vec<&'a Example> {
        if self.in_window == 0 {
            return Vec::new();
        }
        let mut cumulative = Vec::with_capacity(self.shards.len());
        let mut acc = 0u64;
        for (_, ex) in &self.shards {
            acc += ex.len() as u64;
            cumulative.push(acc);
        }
        (0..n)
            .map(|_| {
                let k = rng.random_range(0..acc);
                let s = cumulative.partition_point(|&c| c <= k);
                let before = if s == 0 { 0 } else { cumulative[s - 1] };
                &self.shards[s].1[(k - before) as usize]
            })
            .collect()
    }
}

/// A training batch: inputs `[B, F]`, dense policy targets
/// `[B, POLICY_SIZE]`, win/draw/loss value targets `[B, 3]`, material
/// targets `[B, MATERIAL_TARGETS]`, row-major.
#[derive(Clone, Debug, Default)]
pub struct Batch {
    /// Rows.
    pub len: usize,
    /// Inputs per row, `F` (the encoder version's width).
    pub features: usize,
    /// Encoded positions.
    pub input: Vec<f32>,
    /// Policy targets.
    pub policy: Vec<f32>,
    /// Value targets: win, draw, loss probabilities per row.
    pub wdl: Vec<f32>,
    /// Material targets per row (see [`Example::material`]); a symmetry
    /// leaves them as they are.
    pub material: Vec<f32>,
}

/// Builds batches: the 16 policy permutations, computed once, the value
/// target's mix of result and search value, and the encoder version.
#[derive(Clone, Debug)]
pub struct Augmenter {
    perms: Vec<Vec<u16>>,
    search_value_weight: f32,
    encoder: u32,
}

impl Default for Augmenter {
    fn default() -> Self {
        Augmenter::new()
    }
}

impl Augmenter {
    /// The permutations of every symmetry; value targets the game's result.
    pub fn new() -> Augmenter {
        Augmenter {
            perms: Symmetry::ALL
                .iter()
                .map(|s| s.policy_permutation())
                .collect(),
            search_value_weight: 0.0,
            encoder: 1,
        }
    }

    /// Inputs encoded in this version (see [`shax_nn::features`]; 1 by default).
    pub fn with_encoder(mut self, version: u32) -> Augmenter {
        self.encoder = version;
        self
    }

    /// Value targets mixing the search's root value in with this weight
    /// (see [`Example::wdl_target`]).
    pub fn with_search_value_weight(mut self, weight: f64) -> Augmenter {
        self.search_value_weight = weight as f32;
        self
    }

    /// `example` under symmetry `s`: the position mapped, the policy target
    /// permuted the same way (so it stays on the mapped position's legal actions).
    pub fn apply(&self, example: &Example, s: Symmetry) -> (Position, Vec<(u16, f32)>) {
        let perm = &self.perms[s.index()];
        (
            s.position(&example.position),
            example
                .policy
                .iter()
                .map(|&(i, p)| (perm[i as usize], p))
                .collect(),
        )
    }

    /// A batch from `examples`, each under a random symmetry.
    pub fn batch<R: Rng>(&self, examples: &[&Example], rng: &mut R) -> Batch {
        let n = examples.len();
        let mut positions = Vec::with_capacity(n);
        let mut policy = vec![0.0f32; n * POLICY_SIZE];
        let mut wdl = Vec::with_capacity(3 * n);
        let mut material = Vec::with_capacity(MATERIAL_TARGETS * n);
        for (row, e) in examples.iter().enumerate() {
            let s = Symmetry::ALL[rng.random_range(0..16)];
            let (pos, pol) = self.apply(e, s);
            positions.push(pos);
            let out = &mut policy[row * POLICY_SIZE..(row + 1) * POLICY_SIZE];
            let total: f32 = pol.iter().map(|&(_, p)| p).sum();
            let scale = if total > 0.0 { 1.0 / total } else { 0.0 };
            for (i, p) in pol {
                out[i as usize] += p * scale;
            }
            wdl.extend(e.wdl_target(self.search_value_weight));
            material.extend(e.material);
        }
        let features = shax_nn::features(self.encoder);
        let mut input = Vec::with_capacity(n * features);
        encode_batch(&positions, self.encoder, &mut input);
        Batch {
            len: n,
            features,
            input,
            policy,
            wdl,
            material,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use shax_core::{Action, Game};

    #[test]
    fn symmetry_keeps_policy_targets_on_legal_actions() {
        let aug = Augmenter::new();
        let mut rng = rand::rngs::SmallRng::seed_from_u64(3);
        for preset in ["shax", "nine-mens-morris", "morabaraba"] {
            let mut game = Game::new(Rules::load(preset).unwrap());
            for ply in 0..40 {
                if game.outcome().is_some() {
                    break;
                }
                let legal = game.legal_actions();
                // A target that singles out one action, and spreads over all.
                let chosen = legal[ply % legal.len()];
                let policy: Vec<(u16, f32)> = legal
                    .iter()
                    .map(|a| {
                        let p = if *a == chosen {
                            0.5
                        } else {
                            0.5 / legal.len() as f32
                        };
                        (a.policy_index() as u16, p)
                    })
                    .collect();
                let ex = Example {
                    position: *game.position(),
                    policy,
                    value: 0.0,
                    search_value: 0.0,
                    material: [0.0; 2],
                };
                for s in Symmetry::ALL {
                    let (pos, pol) = aug.apply(&ex, s);
                    let mapped: Vec<u16> = pos
                        .legal_actions()
                        .iter()
                        .map(|a| a.policy_index() as u16)
                        .collect();
                    assert_eq!(mapped.len(), legal.len(), "{preset} {s:?}");
                    for &(i, _) in &pol {
                        assert!(mapped.contains(&i), "{preset} ply {ply} {s:?}");
                    }
                    // The heavy action maps to the image of the chosen action.
                    let heavy = pol
                        .iter()
                        .max_by(|a, b| a.1.total_cmp(&b.1))
                        .map(|&(i, _)| i)
                        .unwrap();
                    assert_eq!(
                        Action::from_policy_index(heavy as usize),
                        Some(s.action(chosen))
                    );
                }
                let b = aug.batch(&[&ex], &mut rng);
                assert!((b.policy.iter().sum::<f32>() - 1.0).abs() < 1e-4);
                game.play(chosen).unwrap();
            }
        }
    }
}
