//! The head-to-head search of `shax tiers`: each tier below `master` placed
//! against the one above it, top down, by screens and full matches, with
//! step downs where a tier leaves no room below it.

use std::collections::HashMap;

use super::TiersError;

/// Games between two players, from one side: the stronger tier's between
/// tiers, the weakest tier's in a [`super::BeginnerCheck`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tally {
    /// Games played.
    pub games: u64,
    /// That side's wins.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
}

impl Tally {
    /// That side's score, 0 to 1.
    pub fn score(&self) -> f64 {
        (self.wins as f64 + 0.5 * self.draws as f64) / self.games.max(1) as f64
    }
}

impl std::ops::Add for Tally {
    type Output = Tally;

    /// Both tallies together.
    fn add(self, o: Tally) -> Tally {
        Tally {
            games: self.games + o.games,
            wins: self.wins + o.wins,
            draws: self.draws + o.draws,
        }
    }
}

/// How far a score lies outside the band (0 inside).
pub(super) fn miss(score: f64, band: (f64, f64)) -> f64 {
    (band.0 - score).max(score - band.1).max(0.0)
}

/// Whether a screen's verdict needs a full match: its score lies in the
/// band, or outside it by at most one standard error of a match of that
/// many games at the band's nearer edge (about 6 points over 85% and 8
/// under 60% for a 40-game screen), where the screen cannot tell.
fn worth_completing(screen: Tally, band: (f64, f64)) -> bool {
    let score = screen.score();
    let edge = if score < band.0 { band.0 } else { band.1 };
    let standard_error = (edge * (1.0 - edge) / screen.games.max(1) as f64).sqrt();
    miss(score, band) <= standard_error
}

/// A match's tally, or why it could not be played.
pub(super) type Played = Result<Tally, TiersError>;

/// `tally` (a screen) made up to a full match of `games` games.
fn complete(
    m: &mut dyn Matches,
    upper: usize,
    lower: usize,
    tally: Tally,
    games: u64,
    salt: u64,
) -> Result<Tally, TiersError> {
    if tally.games >= games {
        return Ok(tally);
    }
    Ok(tally + m.play((upper, lower), (games - tally.games) as u32, salt)?)
}

/// What the refinement asks of the world: play a match between two pool
/// positions (`games`, a seed `salt`), and say something.
pub(super) trait Matches {
    /// Plays `upper` (the stronger tier) against `lower`.
    fn play(
        &mut self,
        upper_lower: (usize, usize),
        games: u32,
        salt: u64,
    ) -> Result<Tally, TiersError>;
    /// A progress line.
    fn line(&mut self, line: &str);
}

/// [`Matches`] that plays each pair's screen and the rest of its full match
/// once: asked again (a step down that comes back to a pair), it gives the
/// same games, so a verdict never flips on a new draw of openings and costs
/// nothing the second time.
struct Remembered<'a> {
    m: &'a mut dyn Matches,
    /// Tallies by (upper, lower) and games.
    played: HashMap<((usize, usize), u32), Tally>,
}

impl<'a> Remembered<'a> {
    fn new(m: &'a mut dyn Matches) -> Self {
        Remembered {
            m,
            played: HashMap::new(),
        }
    }
}

impl Matches for Remembered<'_> {
    fn play(&mut self, pair: (usize, usize), games: u32, salt: u64) -> Played {
        if let Some(&tally) = self.played.get(&(pair, games)) {
            return Ok(tally);
        }
        let tally = self.m.play(pair, games, salt)?;
        self.played.insert((pair, games), tally);
        Ok(tally)
    }

    fn line(&mut self, line: &str) {
        self.m.line(line);
    }
}

/// What the head-to-head refinement needs.
pub(super) struct Refine {
    /// Every tier's score against the one below must fall in it.
    pub(super) band: (f64, f64),
    /// Games of a screening match.
    pub(super) screen: u32,
    /// Games of a full match.
    pub(super) games: u32,
    /// Candidates tried per tier.
    pub(super) tries: u32,
    /// Positions in the pool below this one may be the lowest tier.
    pub(super) bottom_end: usize,
    /// The tiers' names, weakest first.
    pub(super) names: Vec<String>,
}

/// Moves the tiers below `master` until each scores inside the band against
/// the one below it, top down (see [`place_below`]). When even the strongest
/// candidate allowed under a tier loses to it by more than the band, that
/// tier (not `master`) steps down (see [`step_down`]: the tiers above it
/// first, where they must) and the tier under it is placed again; when it
/// cannot, the tier under it keeps its closest candidate. Returns each
/// tier's full match against the one below (`None` for `beginner`); see
/// [`all_in_band`] for the verdict.
pub(super) fn refine(
    chosen: &mut [usize],
    r: &Refine,
    m: &mut dyn Matches,
) -> Result<Vec<Option<Tally>>, TiersError> {
    let m = &mut Remembered::new(m);
    let top = chosen.len() - 1;
    let mut out = vec![None; chosen.len()];
    let mut k = top;
    while k >= 1 {
        let highest = highest_below(k, chosen, r);
        let may_step = may_step_down(k, chosen);
        let (p, tally) = match place_below(k, chosen, highest, may_step, r, m)? {
            Placement::Placed(p, tally) => (p, tally),
            Placement::Crowded { score, closest } => {
                m.line(&format!(
                    "  {} tries a step down: {:.1}% over the strongest {} allowed below it",
                    r.names[k],
                    100.0 * score,
                    r.names[k - 1]
                ));
                if step_down(k, chosen, &mut out, r, m)? {
                    continue; // tier k - 1 is placed again, under the new tier k
                }
                let (p, screened) = closest;
                (p, confirm(k, chosen, p, screened, r, m)?)
            }
        };
        chosen[k - 1] = p;
        out[k] = Some(tally);
        k -= 1;
    }
    Ok(out)
}

/// Whether every tier's full match against the one below (`out`, as
/// [`refine`] returns it) fell in the band; a warning for each that did not.
pub(super) fn all_in_band(out: &[Option<Tally>], r: &Refine, m: &mut dyn Matches) -> bool {
    let mut all_in = true;
    for (k, tally) in out.iter().enumerate().skip(1) {
        let score = tally.expect("every tier above beginner placed").score();
        if miss(score, r.band) > 0.0 {
            all_in = false;
            m.line(&format!(
                "warning: {} scores {:.1}% against {} (outside {:.0}%-{:.0}%); the closest candidate is kept",
                r.names[k],
                100.0 * score,
                r.names[k - 1],
                100.0 * r.band.0,
                100.0 * r.band.1
            ));
        }
    }
    all_in
}

/// Tier `k` placed again under tier `k + 1`, among the candidates weaker
/// than it is now; kept (and `true`) only when its match there falls in the
/// band, so that a step down never opens a gap above. When tier `k + 1` is
/// too strong even for the strongest of those, it steps down first (the same
/// way, recursively, never `master`) and tier `k` tries again under it; if
/// tier `k` still finds no place, every tier moved is put back.
fn step_down(
    k: usize,
    chosen: &mut [usize],
    out: &mut [Option<Tally>],
    r: &Refine,
    m: &mut dyn Matches,
) -> Result<bool, TiersError> {
    let highest = chosen[k].min(chosen[k + 1]).saturating_sub(1);
    if highest < k {
        return Ok(false); // no room for the tiers below
    }
    // Crowded: too strong for every weaker candidate, said by screens unless
    // they were near the band (a full match of a candidate that is not taken
    // would be wasted).
    let crowded = match place_below(k + 1, chosen, highest, true, r, m)? {
        Placement::Placed(p, tally) if miss(tally.score(), r.band) == 0.0 => {
            chosen[k] = p;
            out[k + 1] = Some(tally);
            return Ok(true);
        }
        Placement::Placed(..) => false,
        Placement::Crowded { .. } => true,
    };
    if !crowded || !may_step_down(k + 1, chosen) {
        return Ok(false);
    }
    m.line(&format!(
        "  {} tries a step down to make room for {}",
        r.names[k + 1],
        r.names[k]
    ));
    let (kept_chosen, kept_out) = (chosen.to_vec(), out.to_vec());
    if step_down(k + 1, chosen, out, r, m)? && step_down(k, chosen, out, r, m)? {
        return Ok(true);
    }
    m.line(&format!(
        "  {} finds no place under a weaker {}: both stay",
        r.names[k],
        r.names[k + 1]
    ));
    chosen.copy_from_slice(&kept_chosen);
    out.copy_from_slice(&kept_out);
    Ok(false)
}

/// Whether tier `k` may step down: it is not master, and a weaker position
/// would still leave room for the tiers below it.
fn may_step_down(k: usize, chosen: &[usize]) -> bool {
    k + 1 < chosen.len() && chosen[k] > k
}

/// The strongest pool position tier `k - 1` may take under tier `k`: below
/// it, and under `--beginner-below` for `beginner`.
pub(super) fn highest_below(k: usize, chosen: &[usize], r: &Refine) -> usize {
    let hi = chosen[k].saturating_sub(1);
    if k == 1 {
        hi.min(r.bottom_end.saturating_sub(1))
    } else {
        hi
    }
}

/// Where [`place_below`] put a tier.
enum Placement {
    /// This pool position, with its full match against the tier above.
    Placed(usize, Tally),
    /// Nowhere yet: even the strongest candidate allowed scored `score`
    /// against the tier above, more than the band. `closest` is the
    /// candidate that missed the band least, with the games it has played
    /// (perhaps only a screen: [`confirm`] completes them).
    Crowded { score: f64, closest: (usize, Tally) },
}

/// The candidate for tier `k - 1` under tier `k` (pool position
/// `chosen[k]`): a bisection over the candidates between its lower
/// neighbours and `highest` (in ladder order), each screened with a short
/// match and confirmed with a full one when the screen is in the band or
/// near it (see [`worth_completing`]), until one scores in the band. When the
/// bisection runs out of room, the untried candidates nearest the closest
/// one follow (the ladder may have ordered neighbours wrongly). After
/// `r.tries`, the closest, with its full match. With `may_step_down`, when
/// the candidate at `highest` scored above the band and none fell in it,
/// [`Placement::Crowded`] instead.
fn place_below(
    k: usize,
    chosen: &[usize],
    highest: usize,
    may_step_down: bool,
    r: &Refine,
    m: &mut dyn Matches,
) -> Result<Placement, TiersError> {
    let upper = chosen[k];
    // Room for the k - 1 tiers below the one searched.
    let lo_bound = k - 1;
    if upper == 0 || lo_bound > highest {
        return Err(TiersError::Candidates(format!(
            "no candidate left for {} below {} (add checkpoints, sims or temps)",
            r.names[k - 1],
            r.names[k]
        )));
    }
    let mut order = Order::new(lo_bound, highest);
    let mut p = chosen[k - 1].clamp(lo_bound, highest);
    let games = u64::from(r.games);
    // The closest so far: (miss, only a screen, position, tally).
    let mut best: Option<(f64, bool, usize, Tally)> = None;
    // The strongest allowed candidate's score, once tried.
    let mut at_highest = None;
    for t in 0..r.tries.max(1) {
        let salt = ((k as u64) << 40) ^ ((t as u64) << 20);
        let tally = judge(k, upper, p, r, m, salt)?;
        let miss_by = miss(tally.score(), r.band);
        if p == highest {
            at_highest = Some(tally.score());
        }
        let key = (miss_by, tally.games < games);
        if best.is_none_or(|b| key < (b.0, b.1)) {
            best = Some((key.0, key.1, p, tally));
        }
        if miss_by == 0.0 {
            break;
        }
        let closest = best.expect("tried").2;
        match order.after(p, tally.score() > r.band.1, closest) {
            Some(q) => p = q,
            None => break,
        }
    }
    let (miss_by, _, p, tally) = best.expect("one try at least");
    if let Some(score) = at_highest
        && may_step_down
        && miss_by > 0.0
        && score > r.band.1
    {
        return Ok(Placement::Crowded {
            score,
            closest: (p, tally),
        });
    }
    Ok(Placement::Placed(p, confirm(k, chosen, p, tally, r, m)?))
}

/// Candidate `p` for tier `k - 1` against tier `k` (pool position `upper`):
/// a screen, made up to a full match when it is in the band or near it
/// (see [`worth_completing`]), and said.
fn judge(
    k: usize,
    upper: usize,
    p: usize,
    r: &Refine,
    m: &mut dyn Matches,
    salt: u64,
) -> Result<Tally, TiersError> {
    let mut tally = m.play((upper, p), r.screen.min(r.games), salt)?;
    if worth_completing(tally, r.band) {
        tally = complete(m, upper, p, tally, u64::from(r.games), salt ^ 1)?;
    }
    say_match(k, p, tally, r, m);
    Ok(tally)
}

/// The progress line of tier `k` against candidate `p` for tier `k - 1`.
pub(super) fn say_match(k: usize, p: usize, tally: Tally, r: &Refine, m: &mut dyn Matches) {
    m.line(&format!(
        "  {} vs {} (candidate {p}): {:.1}% of {} games{}",
        r.names[k],
        r.names[k - 1],
        100.0 * tally.score(),
        tally.games,
        if miss(tally.score(), r.band) == 0.0 {
            ""
        } else {
            ", outside the band"
        }
    ));
}

/// The order in which [`place_below`] tries candidates between `lo_bound`
/// and `highest`: a bisection in ladder order, then, once it has nowhere
/// left to go, the untried candidate nearest the closest so far (the
/// ladder orders candidates close in strength by chance).
struct Order {
    lo_bound: usize,
    highest: usize,
    /// The bisection's range; empty once it has nowhere left to go.
    lo: usize,
    hi: usize,
    tried: Vec<usize>,
}

impl Order {
    fn new(lo_bound: usize, highest: usize) -> Order {
        Order {
            lo_bound,
            highest,
            lo: lo_bound,
            hi: highest,
            tried: Vec::new(),
        }
    }

    /// The next candidate after `p` missed the band (`too_weak`: above it),
    /// `closest` being the closest so far; `None` when all are tried.
    fn after(&mut self, p: usize, too_weak: bool, closest: usize) -> Option<usize> {
        self.tried.push(p);
        if self.lo <= self.hi {
            if too_weak {
                self.lo = p + 1;
            } else if p == self.lo {
                self.lo = self.hi + 1; // too strong, and nothing weaker is left
            } else {
                self.hi = p - 1;
            }
            if self.lo <= self.hi {
                return Some((self.lo + self.hi).div_ceil(2));
            }
        }
        (self.lo_bound..=self.highest)
            .filter(|q| !self.tried.contains(q))
            .min_by_key(|q| q.abs_diff(closest))
    }
}

/// `tally` (candidate `p` for tier `k - 1` against tier `k`) made up to a
/// full match.
fn confirm(
    k: usize,
    chosen: &[usize],
    p: usize,
    tally: Tally,
    r: &Refine,
    m: &mut dyn Matches,
) -> Result<Tally, TiersError> {
    let salt = ((k as u64) << 40) ^ 3;
    complete(m, chosen[k], p, tally, u64::from(r.games), salt)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shax_bot::TIERS;

    /// 60%-85%, 40-game screens, 200-game matches, six tries.
    fn band_60_85(bottom_end: usize) -> Refine {
        Refine {
            band: (0.6, 0.85),
            screen: 40,
            games: 200,
            tries: 6,
            bottom_end,
            names: TIERS.iter().map(|t| t.to_string()).collect(),
        }
    }

    /// A match between pool positions whose true strengths are `elo`: the
    /// expected score, rounded to whole games (so the test is exact).
    struct Simulated<'a>(&'a [f64]);

    impl Matches for Simulated<'_> {
        fn play(&mut self, (upper, lower): (usize, usize), games: u32, _: u64) -> Played {
            assert!(upper > lower, "the stronger tier plays the weaker");
            let elo = self.0;
            let e = 1.0 / (1.0 + 10f64.powf((elo[lower] - elo[upper]) / 400.0));
            Ok(Tally {
                games: games as u64,
                wins: (e * games as f64).round() as u64,
                draws: 0,
            })
        }

        fn line(&mut self, _: &str) {}
    }

    fn simulated(elo: &[f64]) -> Simulated<'_> {
        Simulated(elo)
    }

    /// [`Simulated`], counting the games each pair (upper, lower) played.
    struct Counted<'a>(
        Simulated<'a>,
        std::collections::HashMap<(usize, usize), u32>,
    );

    impl Matches for Counted<'_> {
        fn play(&mut self, pair: (usize, usize), games: u32, salt: u64) -> Played {
            *self.1.entry(pair).or_default() += games;
            self.0.play(pair, games, salt)
        }

        fn line(&mut self, _: &str) {}
    }

    /// [`Simulated`], except that the first match `pair` plays (its screen)
    /// wins `wins` of its games.
    struct LuckyScreen<'a> {
        truth: Simulated<'a>,
        pair: (usize, usize),
        wins: Option<u64>,
    }

    impl Matches for LuckyScreen<'_> {
        fn play(&mut self, pair: (usize, usize), games: u32, salt: u64) -> Played {
            match self.wins.take_if(|_| pair == self.pair) {
                Some(wins) => Ok(Tally {
                    games: games as u64,
                    wins,
                    draws: 0,
                }),
                None => self.truth.play(pair, games, salt),
            }
        }

        fn line(&mut self, _: &str) {}
    }

    #[test]
    fn a_pair_asked_again_gives_the_same_games_without_playing_them() {
        let elo = [0.0, 200.0];
        let mut counted = Counted(simulated(&elo), Default::default());
        let mut m = Remembered::new(&mut counted);
        let screen = m.play((1, 0), 40, 1).unwrap();
        assert_eq!(m.play((1, 0), 40, 2).unwrap(), screen);
        let rest = m.play((1, 0), 160, 3).unwrap();
        assert_eq!(m.play((1, 0), 160, 4).unwrap(), rest);
        assert_eq!(counted.1[&(1, 0)], 200);
    }

    #[test]
    fn a_screen_just_outside_the_band_is_confirmed_by_a_full_match() {
        // Easy (241) is truly 80% over candidate 0 (0 Elo), but that pair's
        // screen wins 36 of 40 (90%, over the band by less than a screen's
        // standard error). The other candidates are truly 53% and 56%: only a
        // full match finds candidate 0 in the band (36 + 128 of 200).
        let elo = [0.0, 200.0, 220.0, 241.0];
        let chosen = [0, 3];
        let r = band_60_85(3);
        let mut m = LuckyScreen {
            truth: simulated(&elo),
            pair: (3, 0),
            wins: Some(36),
        };
        match place_below(1, &chosen, 2, false, &r, &mut m).unwrap() {
            Placement::Placed(p, tally) => {
                assert_eq!(p, 0);
                assert_eq!((tally.games, tally.wins), (200, 164));
            }
            Placement::Crowded { .. } => panic!("not asked to step down"),
        }
        // A screen outside by more than that is believed: 39 of 40 (97.5%).
        m.wins = Some(39);
        match place_below(1, &chosen, 2, false, &r, &mut m).unwrap() {
            Placement::Placed(p, _) => assert_ne!(p, 0),
            Placement::Crowded { .. } => panic!("not asked to step down"),
        }
    }

    #[test]
    fn a_candidate_the_ladder_put_out_of_order_is_still_found() {
        // The ladder ranked position 0 (truly 450) below 1 and 2 (350 and
        // 380). Under easy (700) the bisection tries 2 (86.3%, too weak),
        // has nowhere left to go, and the nearest untried candidates follow:
        // 1 (88.2%), then 0 (80.8%, in the band).
        let elo = [450.0, 350.0, 380.0, 700.0];
        let chosen = [2, 3];
        let r = band_60_85(3);
        match place_below(1, &chosen, 2, false, &r, &mut simulated(&elo)).unwrap() {
            Placement::Placed(p, tally) => {
                assert_eq!(p, 0);
                assert_eq!(tally.games, 200);
                assert!(miss(tally.score(), r.band) == 0.0, "{}", tally.score());
            }
            Placement::Crowded { .. } => panic!("not asked to step down"),
        }
    }

    #[test]
    fn refine_moves_tiers_until_every_neighbour_score_is_in_the_band() {
        // True strengths: the top is far above the rest (the even ladder guess
        // would give it a 95% step), and intermediate candidates exist.
        let elo = [
            400.0, 500.0, 600.0, 700.0, 800.0, 900.0, 1000.0, 1100.0, 1300.0, 1400.0,
        ];
        let mut chosen = vec![0, 2, 4, 6, 9];
        let r = band_60_85(elo.len());
        let mut sim = simulated(&elo);
        let m = refine(&mut chosen, &r, &mut sim).unwrap();
        let all_in = all_in_band(&m, &r, &mut sim);
        assert!(all_in);
        assert!(chosen.windows(2).all(|w| w[0] < w[1]), "{chosen:?}");
        assert_eq!(chosen[4], 9, "master stays the strongest");
        assert!(m[0].is_none());
        for (k, t) in m.iter().enumerate().skip(1) {
            let t = t.unwrap();
            assert_eq!(t.games, 200, "full matches are reported");
            assert!((0.6..=0.85).contains(&t.score()), "tier {k}: {}", t.score());
        }
    }

    #[test]
    fn refine_keeps_the_closest_and_says_so_when_no_candidate_fits() {
        // Every candidate is 600 Elo from its neighbour: every step is too wide.
        let elo = [0.0, 600.0, 1200.0, 1800.0, 2400.0, 3000.0];
        let mut chosen = vec![0, 1, 2, 3, 5];
        let r = band_60_85(elo.len());
        let mut sim = simulated(&elo);
        let m = refine(&mut chosen, &r, &mut sim).unwrap();
        let all_in = all_in_band(&m, &r, &mut sim);
        assert!(!all_in);
        assert!(chosen.windows(2).all(|w| w[0] < w[1]), "{chosen:?}");
        assert_eq!(chosen[4], 5);
        assert_eq!(m[4].unwrap().games, 200);
        assert!(m[4].unwrap().score() > 0.85);
    }

    #[test]
    fn a_tier_steps_down_to_make_room_for_the_one_below() {
        // Easy is first placed at 800, 150 under medium (950), but beginner
        // must be 420 or 460 and would lose to it by 88% or more. Easy steps
        // down to 700 (80.8% under medium), and beginner fits under it.
        let elo = [420.0, 460.0, 700.0, 800.0, 950.0, 1100.0, 1250.0];
        let mut chosen = vec![0, 3, 4, 5, 6];
        let r = band_60_85(2);
        let mut sim = simulated(&elo);
        let m = refine(&mut chosen, &r, &mut sim).unwrap();
        let all_in = all_in_band(&m, &r, &mut sim);
        assert!(all_in, "{chosen:?}");
        assert_eq!(chosen, [0, 2, 4, 5, 6]);
        assert!(m.iter().skip(1).all(|t| t.unwrap().games == 200));
    }

    #[test]
    fn a_step_down_that_would_leave_the_band_above_is_not_taken() {
        // Easy (900) is 91% over any allowed beginner (400 or 450), and
        // nothing between 500 and 900 exists: stepping easy down to 500 would
        // put medium (1000) 95% over it, so easy stays, only beginner's step
        // misses, and beginner stays below its bound.
        let elo = [400.0, 450.0, 500.0, 900.0, 1000.0, 1100.0, 1200.0];
        let mut chosen = vec![0, 3, 4, 5, 6];
        let r = band_60_85(2);
        let mut counted = Counted(simulated(&elo), Default::default());
        let m = refine(&mut chosen, &r, &mut counted).unwrap();
        let all_in = all_in_band(&m, &r, &mut counted);
        assert!(!all_in);
        assert_eq!(&chosen[1..], [3, 4, 5, 6]);
        assert!(
            counted.1[&(4, 2)] < 200,
            "steps not taken are judged by screens"
        );
        let misses: Vec<usize> = (1..5)
            .filter(|&k| miss(m[k].unwrap().score(), r.band) > 0.0)
            .collect();
        assert_eq!(misses, [1], "only easy over beginner misses");
        assert!(chosen[0] < 2, "{chosen:?}");
    }

    #[test]
    fn a_tier_above_steps_down_first_when_the_one_stepping_down_needs_room() {
        // Beginner must be 400 or 420. Easy at 900, then stepped down to 750,
        // is still more than 85% over it; easy at 650 would be 88% under
        // medium (1000). Medium steps down to 900 (80.8% under hard, 1150),
        // easy to 650 under it, and beginner fits: every step in the band.
        let elo = [400.0, 420.0, 650.0, 750.0, 900.0, 1000.0, 1150.0, 1400.0];
        let mut chosen = vec![0, 4, 5, 6, 7];
        let r = band_60_85(2);
        let mut sim = simulated(&elo);
        let m = refine(&mut chosen, &r, &mut sim).unwrap();
        let all_in = all_in_band(&m, &r, &mut sim);
        assert!(all_in, "{chosen:?}");
        assert_eq!(&chosen[1..], [2, 4, 6, 7]);
        assert!(m.iter().skip(1).all(|t| t.unwrap().games == 200));
    }
}
