//! Elo arithmetic: the difference implied by a match score with a 95%
//! interval, and the Bradley-Terry maximum-likelihood fit of a round robin.

use serde::Serialize;

/// 1.96: the two-sided 95% normal quantile.
pub const Z95: f64 = 1.959_963_984_540_054;

/// An Elo difference with its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Elo {
    /// The estimate.
    pub elo: f64,
    /// Lower end of the 95% interval.
    pub low: f64,
    /// Upper end of the 95% interval.
    pub high: f64,
}

/// The Elo difference for an expected score in `(0, 1)`.
///
/// # Examples
///
/// ```
/// use shax_train::elo::elo_from_score;
///
/// assert_eq!(elo_from_score(0.5), 0.0);
/// assert!((elo_from_score(0.75) - 190.85).abs() < 0.01);
/// ```
pub fn elo_from_score(score: f64) -> f64 {
    // `0.0 -` rather than a negation: an even score is +0, never -0.
    0.0 - 400.0 * (1.0 / score - 1.0).log10()
}

/// The expected score of a player `diff` Elo above the opponent.
pub fn score_from_elo(diff: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-diff / 400.0))
}

/// The Elo difference and 95% interval of a match with these results (from
/// the first player's side).
///
/// Between 0% and 100% the interval is the normal one on the mean score, with
/// the variance of the per-game results (draws narrow it), as cutechess and
/// fastchess report. A 0% or 100% score has no finite estimate: the score is
/// then taken as half a game short of perfect (`1 - 1/(2n)`), and the far end
/// of the interval is the Wilson bound, so the numbers stay finite and honest
/// about the sample size. No games: all zeros.
///
/// # Examples
///
/// ```
/// use shax_train::elo::elo_interval;
///
/// let e = elo_interval(60, 0, 40);
/// assert!((e.elo - 70.44).abs() < 0.01);
/// assert!(e.low < e.elo && e.elo < e.high);
/// let draws = elo_interval(0, 10, 0);
/// assert!(draws.elo == 0.0 && draws.low < -100.0 && draws.high > 100.0);
/// let perfect = elo_interval(200, 0, 0);
/// assert!(perfect.elo.is_finite() && perfect.low > 600.0);
/// ```
pub fn elo_interval(wins: u64, draws: u64, losses: u64) -> Elo {
    let n = (wins + draws + losses) as f64;
    if n == 0.0 {
        return Elo {
            elo: 0.0,
            low: 0.0,
            high: 0.0,
        };
    }
    let score = (wins as f64 + 0.5 * draws as f64) / n;
    let edge = 0.5 / n;
    if score <= 0.0 || score >= 1.0 {
        // Wilson's bound for a perfect score; a zero score mirrors it.
        let (lo, _) = wilson(1.0, n);
        let e = elo_from_score((1.0 - edge).max(0.5));
        let far = elo_from_score(lo.clamp(edge, 1.0 - edge)).min(e);
        return if score >= 1.0 {
            Elo {
                elo: e,
                low: far,
                high: e,
            }
        } else {
            Elo {
                elo: -e,
                low: -e,
                high: -far,
            }
        };
    }
    let var = (wins as f64 * (1.0 - score).powi(2)
        + draws as f64 * (0.5 - score).powi(2)
        + losses as f64 * score.powi(2))
        / n;
    let clamp = |s: f64| s.clamp(edge, 1.0 - edge);
    let (lo, hi) = if var > 0.0 {
        let se = (var / n).sqrt();
        (score - Z95 * se, score + Z95 * se)
    } else {
        // Every game ended alike (all draws): the sample shows no spread, so
        // take Wilson's interval, as if each game were a coin flip for the score.
        wilson(score, n)
    };
    Elo {
        elo: elo_from_score(score),
        low: elo_from_score(clamp(lo)),
        high: elo_from_score(clamp(hi)),
    }
}

/// The Wilson score interval of a proportion `p` over `n` trials.
fn wilson(p: f64, n: f64) -> (f64, f64) {
    let z2 = Z95 * Z95;
    let centre = p + z2 / (2.0 * n);
    let half = Z95 * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    let d = 1.0 + z2 / n;
    ((centre - half) / d, (centre + half) / d)
}

/// One player's fitted rating.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct EloRating {
    /// The rating (the anchor is 0).
    pub elo: f64,
    /// Its standard error relative to the anchor (0 for the anchor).
    pub se: f64,
}

impl EloRating {
    /// The 95% interval, `elo ± 1.96 se`.
    pub fn interval(&self) -> (f64, f64) {
        (self.elo - Z95 * self.se, self.elo + Z95 * self.se)
    }
}

/// Match results between named players and the Bradley-Terry fit over them:
/// the one place where a ladder's or a run's results become ratings with
/// their intervals.
///
/// # Examples
///
/// ```
/// use shax_train::elo::Results;
///
/// let mut r = Results::default();
/// r.add("random", "greedy", 10.0, 100.0); // random scores 10 of 100
/// let fit = r.fit("random");
/// assert_eq!(fit[0].0, "random");
/// assert!(fit[1].1.elo > 300.0);
/// let (lo, hi) = fit[1].1.interval();
/// assert!(lo < fit[1].1.elo && fit[1].1.elo < hi);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Results {
    names: Vec<String>,
    pairs: Vec<(usize, usize, f64, f64)>,
}

impl Results {
    /// The index of player `name`, added if new (indices follow first mention).
    pub fn player(&mut self, name: &str) -> usize {
        match self.names.iter().position(|n| n == name) {
            Some(i) => i,
            None => {
                self.names.push(name.to_string());
                self.names.len() - 1
            }
        }
    }

    /// Adds a player even when one of that name exists (for ladders whose
    /// players are told apart by index); returns its index.
    pub fn new_player(&mut self, name: &str) -> usize {
        self.names.push(name.to_string());
        self.names.len() - 1
    }

    /// `a` scored `score` points in `games` games against `b` (a game
    /// against oneself is ignored).
    pub fn add(&mut self, a: &str, b: &str, score: f64, games: f64) {
        let (i, j) = (self.player(a), self.player(b));
        self.add_indices(i, j, score, games);
    }

    /// As [`Results::add`], for players known by their index (players with
    /// the same name stay apart).
    ///
    /// # Panics
    ///
    /// When an index was not handed out by [`Results::player`] or
    /// [`Results::new_player`].
    pub fn add_indices(&mut self, i: usize, j: usize, score: f64, games: f64) {
        assert!(
            i < self.names.len() && j < self.names.len(),
            "unknown player"
        );
        if i != j {
            self.pairs.push((i, j, score, games));
        }
    }

    /// Every player's rating, in order of first mention, with `anchor` at 0
    /// (the first player when `anchor` never played).
    pub fn fit(&self, anchor: &str) -> Vec<(String, EloRating)> {
        let a = self.names.iter().position(|n| n == anchor).unwrap_or(0);
        self.fit_anchored(a)
    }

    /// As [`Results::fit`], with the anchor given by its index.
    pub fn fit_anchored(&self, anchor: usize) -> Vec<(String, EloRating)> {
        if self.names.is_empty() {
            return Vec::new();
        }
        let fit = fit_bradley_terry(self.names.len(), &self.pairs, anchor);
        self.names.iter().cloned().zip(fit).collect()
    }
}

/// Fits Bradley-Terry (Elo) ratings by maximum likelihood to pairwise results
/// `(i, j, score of i, games)`, draws counting half, with player `anchor`
/// pinned at 0. Standard errors come from the inverse of the observed
/// information.
///
/// A weak prior keeps every rating finite (a 100% score has no finite maximum):
/// each pair that met gets half a virtual drawn game, negligible against real
/// game counts. Players that never meet anyone
/// connected to the anchor stay at 0 with an infinite error.
///
/// # Panics
///
/// When an index is out of range or `anchor >= n`.
///
/// # Examples
///
/// ```
/// use shax_train::fit_bradley_terry;
///
/// // A scores 25% against B: B is about 191 above A.
/// let r = fit_bradley_terry(2, &[(0, 1, 250.0, 1000.0)], 0);
/// assert!((r[1].elo - 190.85).abs() < 1.0);
/// assert_eq!(r[0].elo, 0.0);
/// ```
pub fn fit_bradley_terry(
    n: usize,
    results: &[(usize, usize, f64, f64)],
    anchor: usize,
) -> Vec<EloRating> {
    assert!(anchor < n, "anchor {anchor} out of range for {n} players");
    // Aggregate: games[i][j] and score[i][j] (i's score against j), with the prior.
    let mut games = vec![vec![0.0f64; n]; n];
    let mut score = vec![vec![0.0f64; n]; n];
    for &(i, j, s, g) in results {
        assert!(i < n && j < n && i != j, "bad pair ({i}, {j})");
        games[i][j] += g;
        games[j][i] += g;
        score[i][j] += s;
        score[j][i] += g - s;
    }
    for i in 0..n {
        for j in 0..n {
            if i != j && games[i][j] > 0.0 {
                games[i][j] += 0.5;
                score[i][j] += 0.25;
            }
        }
    }
    // Natural units: r = elo * ln(10) / 400, p_ij = sigmoid(r_i - r_j).
    let k = 10f64.ln() / 400.0;
    let free: Vec<usize> = (0..n).filter(|&i| i != anchor).collect();
    let mut r = vec![0.0f64; n];
    for _ in 0..200 {
        let (grad, hess) = derivatives(&r, &games, &score, &free);
        let Some(step) = solve(&hess, &grad) else {
            break;
        };
        let mut max = 0.0f64;
        for (f, &i) in free.iter().enumerate() {
            // Damped Newton: at most 2 natural units (~350 Elo) per step.
            let s = step[f].clamp(-2.0, 2.0);
            r[i] += s;
            max = max.max(s.abs());
        }
        if max < 1e-10 {
            break;
        }
    }
    let (_, hess) = derivatives(&r, &games, &score, &free);
    let cov = invert(&hess);
    let mut out = vec![EloRating { elo: 0.0, se: 0.0 }; n];
    for i in 0..n {
        out[i].elo = r[i] / k;
    }
    for (f, &i) in free.iter().enumerate() {
        out[i].se = match &cov {
            Some(c) if c[f][f] > 0.0 => c[f][f].sqrt() / k,
            _ => f64::INFINITY,
        };
    }
    out
}

/// Gradient of the log-likelihood and the (positive definite) negative Hessian,
/// over the free players.
fn derivatives(
    r: &[f64],
    games: &[Vec<f64>],
    score: &[Vec<f64>],
    free: &[usize],
) -> (Vec<f64>, Vec<Vec<f64>>) {
    let n = r.len();
    let m = free.len();
    let mut pos = vec![usize::MAX; n];
    for (f, &i) in free.iter().enumerate() {
        pos[i] = f;
    }
    let mut grad = vec![0.0; m];
    let mut hess = vec![vec![0.0; m]; m];
    for i in 0..n {
        for j in 0..n {
            if i == j || games[i][j] == 0.0 || j < i {
                continue;
            }
            let p = 1.0 / (1.0 + (r[j] - r[i]).exp());
            let g = score[i][j] - games[i][j] * p;
            let w = games[i][j] * p * (1.0 - p);
            let (fi, fj) = (pos[i], pos[j]);
            if fi != usize::MAX {
                grad[fi] += g;
                hess[fi][fi] += w;
            }
            if fj != usize::MAX {
                grad[fj] -= g;
                hess[fj][fj] += w;
            }
            if fi != usize::MAX && fj != usize::MAX {
                hess[fi][fj] -= w;
                hess[fj][fi] -= w;
            }
        }
    }
    (grad, hess)
}

/// Solves `a x = b` by Gaussian elimination with partial pivoting.
fn solve(a: &[Vec<f64>], b: &[f64]) -> Option<Vec<f64>> {
    let m = b.len();
    let mut aug: Vec<Vec<f64>> = (0..m)
        .map(|i| {
            let mut row = a[i].clone();
            row.push(b[i]);
            row
        })
        .collect();
    for c in 0..m {
        let p = (c..m).max_by(|&x, &y| aug[x][c].abs().total_cmp(&aug[y][c].abs()))?;
        if aug[p][c].abs() < 1e-12 {
            return None;
        }
        aug.swap(c, p);
        for r in 0..m {
            if r != c {
                let f = aug[r][c] / aug[c][c];
                let pivot = aug[c].clone();
                for (x, p) in aug[r][c..].iter_mut().zip(&pivot[c..]) {
                    *x -= f * p;
                }
            }
        }
    }
    Some((0..m).map(|i| aug[i][m] / aug[i][i]).collect())
}

/// The inverse of `a`, column by column.
fn invert(a: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let m = a.len();
    let mut cols = Vec::with_capacity(m);
    for c in 0..m {
        let mut e = vec![0.0; m];
        e[c] = 1.0;
        cols.push(solve(a, &e)?);
    }
    Some(
        (0..m)
            .map(|i| (0..m).map(|j| cols[j][i]).collect())
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_matches_hand_computed_values() {
        // 60 wins, 40 losses: s = 0.6, sd of the mean sqrt(0.24 / 100) = 0.04899.
        let e = elo_interval(60, 0, 40);
        let se = (0.24f64 / 100.0).sqrt();
        assert!((e.elo - 70.437).abs() < 0.01);
        assert!((e.low - elo_from_score(0.6 - Z95 * se)).abs() < 1e-9);
        assert!((e.high - elo_from_score(0.6 + Z95 * se)).abs() < 1e-9);
        assert!((e.low - 2.767).abs() < 0.01, "low {}", e.low);
        assert!((e.high - 143.909).abs() < 0.01, "high {}", e.high);
        // All draws: score 0.5 with no spread in the sample; Wilson's interval
        // (10 games: 0.5 +- 0.2634 in score, +-203.5 Elo), not a zero width.
        let d = elo_interval(0, 10, 0);
        assert_eq!(d.elo.to_bits(), 0.0f64.to_bits());
        assert!(
            (d.high - 203.50).abs() < 0.01 && (d.low + d.high).abs() < 1e-9,
            "{d:?}"
        );
        // Draws narrow the interval at the same score.
        let a = elo_interval(30, 40, 30);
        let b = elo_interval(50, 0, 50);
        assert!(a.high - a.low < b.high - b.low);
        assert_eq!(elo_interval(0, 0, 0).elo, 0.0);
    }

    #[test]
    fn perfect_scores_are_finite_and_symmetric() {
        let w = elo_interval(200, 0, 0);
        let l = elo_interval(0, 0, 200);
        assert!(w.elo.is_finite() && w.low.is_finite() && w.high.is_finite());
        assert_eq!(w.elo, elo_from_score(1.0 - 1.0 / 400.0));
        assert!(w.low < w.elo && w.low > 600.0);
        assert_eq!((l.elo, l.low, l.high), (-w.elo, -w.high, -w.low));
        // More games, a higher floor.
        assert!(elo_interval(1000, 0, 0).low > w.low);
    }

    #[test]
    fn fit_recovers_known_ratings() {
        let truth = [0.0, 150.0, 400.0, -100.0, 250.0];
        let mut results = Vec::new();
        for i in 0..truth.len() {
            for j in i + 1..truth.len() {
                let g = 100_000.0;
                results.push((i, j, g * score_from_elo(truth[i] - truth[j]), g));
            }
        }
        let r = fit_bradley_terry(truth.len(), &results, 0);
        for (i, t) in truth.iter().enumerate() {
            assert!(
                (r[i].elo - t).abs() < 1.0,
                "player {i}: {} vs {t}",
                r[i].elo
            );
            assert!(r[i].se < 10.0);
        }
        assert_eq!(r[0].se, 0.0);
        // Anchored elsewhere, the differences are the same.
        let r3 = fit_bradley_terry(truth.len(), &results, 3);
        assert!((r3[2].elo - 500.0).abs() < 1.0);
    }

    #[test]
    fn fit_stays_finite_on_perfect_scores_and_se_shrinks_with_games() {
        let r = fit_bradley_terry(3, &[(0, 1, 0.0, 20.0), (1, 2, 0.0, 20.0)], 0);
        assert!(r.iter().all(|x| x.elo.is_finite() && x.se.is_finite()));
        assert!(r[1].elo > 300.0 && r[2].elo > r[1].elo);
        let few = fit_bradley_terry(2, &[(0, 1, 40.0, 100.0)], 0);
        let many = fit_bradley_terry(2, &[(0, 1, 400.0, 1000.0)], 0);
        assert!(many[1].se < few[1].se);
        // The se of a two-player fit matches the match interval's order of magnitude.
        let e = elo_interval(40, 0, 60);
        assert!(
            ((few[1].elo + e.elo).abs()) < 2.0,
            "{} vs {}",
            few[1].elo,
            e.elo
        );
    }
}
