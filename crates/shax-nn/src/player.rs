//! The `net:` player kind: MCTS guided by a network checkpoint, built from a
//! spec such as `net:runs/a/checkpoints/step-000001000/net.bpk,sims=64`.
//!
//! [`register_net`] adds the kind to a [`Registry`]; [`registry`] is the
//! classic players plus `net:`. Weights are loaded once per path and shared
//! by every player built from the same [`WeightsCache`].

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use shax_core::Rules;
use shax_search::{
    Evaluator, Guard, GumbelConfig, NeuralPlayer, Param, Player, PlayerSpec, PuctConfig, Registry,
    SEED, SYMMETRY_SIZES, SpecError, SymmetryAverage,
};

use crate::checkpoint::load_weights;
use crate::evaluator::NetWeights;

/// Simulations per decision (default 64).
pub const SIMS: Param<u32> = Param::new("sims", 1, 1_000_000);
/// Simulations of a decision to place a piece (default: `sims`).
pub const PLACE: Param<u32> = Param::new("place", 1, 1_000_000);
/// Leaves evaluated per network call (default 1). More leaves per call make
/// a search faster and, at small budgets, weaker: virtual losses spread each
/// call's leaves over siblings, so the tree grows wide instead of deep.
pub const BATCH: Param<usize> = Param::new("batch", 1, 1024);
/// Move temperature (default 0: the most visited action).
pub const TEMP: Param<f32> = Param::new("temp", 0.0, 10.0);
/// `c_init` of the exploration term (default [`DEFAULT_CPUCT`]).
pub const CPUCT: Param<f32> = Param::new(
    "cpuct",
    PuctConfig::C_INIT_RANGE.0,
    PuctConfig::C_INIT_RANGE.1,
);
/// First-play urgency: an unvisited child counts as its parent's value minus
/// this (default [`DEFAULT_FPU`]; values are in [-1, 1]).
pub const FPU: Param<f32> = Param::new(
    "fpu",
    PuctConfig::FPU_REDUCTION_RANGE.0,
    PuctConfig::FPU_REDUCTION_RANGE.1,
);
/// Policy softmax temperature of the search's priors (default
/// [`DEFAULT_PTEMP`]): see [`PuctConfig::policy_temperature`].
pub const PTEMP: Param<f32> = Param::new(
    "ptemp",
    PuctConfig::POLICY_TEMPERATURE_RANGE.0,
    PuctConfig::POLICY_TEMPERATURE_RANGE.1,
);
/// Proving won and lost positions in the tree (`solver=1`; default off):
/// see [`PuctConfig::solver`].
pub const SOLVER: Param<u32> = Param::new("solver", 0, 1);
/// Stopping a search once its most visited action cannot be overtaken
/// (`early=1`, the default; `early=0` spends every simulation): the same
/// choice at temperature 0 in less time. See [`PuctConfig::stop_when_decided`].
pub const EARLY: Param<u32> = Param::new("early", 0, 1);
/// A position that repeats one since the search's root scored as a draw
/// (`twofold=1`; default off): see [`PuctConfig::two_fold_draws`].
pub const TWOFOLD: Param<u32> = Param::new("twofold", 0, 1);
/// Reusing the network's answer for a position the search reaches again by
/// another order of moves (`cache=1`, the default; `cache=0` evaluates it
/// again, to measure the cache): see [`PuctConfig::eval_cache`].
pub const CACHE: Param<u32> = Param::new("cache", 0, 1);
/// What a draw is worth to the player, a win being 1 (default 0; lc0's
/// draw score): above 0 it prefers a safe draw to an unsure win. See
/// [`PuctConfig::draw_score`].
pub const DRAW: Param<f32> = Param::new(
    "draw",
    PuctConfig::DRAW_SCORE_RANGE.0,
    PuctConfig::DRAW_SCORE_RANGE.1,
);
/// An alpha-beta search of this many nodes reviews each choice and vetoes
/// one it finds losing (default: none). See [`Guard`].
pub const GUARD: Param<u64> = Param::new("guard", 1, 1_000_000_000);
/// The guard's margin in centi-pieces (default [`Guard::DEFAULT_MARGIN`]):
/// a choice this much worse than the alpha-beta's best is vetoed.
pub const MARGIN: Param<u32> = Param::new("margin", 0, 100_000);
/// The nodes of the guard's second look where its first search finds the
/// player behind, vetoing only a choice it proves lost (see
/// [`Guard::with_behind`]; default: no second look).
pub const BEHIND: Param<u64> = Param::new("behind", 1, 1_000_000_000);

/// Board symmetries the network's answers are averaged over (1, 2, 4, 8 or
/// 16; default 1, the network as it is): see [`SymmetryAverage`].
pub const SYMS: Param<usize> = Param::new("syms", 1, 16);

/// Default simulations of a `net:` player.
pub const DEFAULT_SIMS: u32 = 64;
/// One leaf a call: `sims=N` is N simulations of sequential PUCT. With the
/// shipped Shax network at 64 simulations against `alphabeta:depth=4` (400
/// games each), batch 1 scored 84.1%, 2 82.8%, 4 77.9% and 8 (the default
/// until then) 71.9%; large searches pass `batch=32` for speed.
const DEFAULT_BATCH: usize = 1;
/// A `net:` player explores less than self-play's searches (AlphaZero's
/// `c_init` 1.25, first-play urgency 0.25): against `alphabeta:depth=4` at 64
/// simulations 0.5 and 0 scored 1 to 2.8 points more on Shax (three networks,
/// 800 games each), 7 to 8 on Nine Men's Morris and Morabaraba (400 games
/// each), and 53.6% head to head against 1.25 and 0.25 (400 games); level at
/// 1,600 simulations against `alphabeta:ms=100` (100 games).
pub const DEFAULT_CPUCT: f32 = 0.5;
/// First-play urgency of a `net:` player (see [`DEFAULT_CPUCT`]).
pub const DEFAULT_FPU: f32 = 0.0;
/// Policy temperature of a `net:` player: the network's own policy, as in
/// self-play; 1.5 and 2 were level with it on Morabaraba's master network
/// at 2,048 simulations (400 games each against `alphabeta:depth=4`).
pub const DEFAULT_PTEMP: f32 = 1.0;

/// Network weights by checkpoint path, loaded once and shared by the players
/// built from clones of this cache.
#[derive(Clone, Debug, Default)]
pub struct WeightsCache(Arc<Mutex<HashMap<PathBuf, NetWeights>>>);

impl WeightsCache {
    /// The weights of the checkpoint at `path` (trained for `rules`), loaded
    /// on first use.
    fn get(&self, path: PathBuf, rules: &Rules) -> Result<NetWeights, String> {
        let mut cache = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(w) = cache.get(&path) {
            return Ok(w.clone());
        }
        let (_, w) = load_weights(&path, Some(rules)).map_err(|e| e.to_string())?;
        cache.insert(path, w.clone());
        Ok(w)
    }
}

/// The help line of the `net` kind.
pub fn net_help() -> String {
    format!(
        "net:<checkpoint>[,gumbel] {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} - MCTS guided by a network (sims default {DEFAULT_SIMS}, place: sims of a decision to place a piece (default sims), batch {DEFAULT_BATCH}: leaves per network call, cpuct {DEFAULT_CPUCT}, fpu {DEFAULT_FPU}, ptemp {DEFAULT_PTEMP}: policy softmax temperature of the priors, solver 0: off, early 1: stop once decided, twofold 0: repetitions are draws at the third, cache 1: transpositions reuse the network's answer, draw 0: what a draw is worth to the player (a win 1), syms 1: board symmetries the network is averaged over (1, 2, 4, 8 or 16), guard: alpha-beta nodes that review each choice (default none), margin {}: centi-pieces a choice may trail the guard's best, behind: nodes of a second look, vetoing only a proven loss, where the guard finds the player {} centi-pieces or more behind)",
        SIMS.help(),
        PLACE.help(),
        BATCH.help(),
        TEMP.help(),
        CPUCT.help(),
        FPU.help(),
        PTEMP.help(),
        SOLVER.help(),
        EARLY.help(),
        TWOFOLD.help(),
        CACHE.help(),
        DRAW.help(),
        SYMS.help(),
        GUARD.help(),
        MARGIN.help(),
        BEHIND.help(),
        SEED.help(),
        Guard::DEFAULT_MARGIN,
        Guard::BEHIND,
    )
}

/// Adds the `net` kind to `registry`: networks trained for `rules`, their
/// weights kept in `cache`.
pub fn register_net(registry: &mut Registry, rules: Rules, cache: WeightsCache) {
    registry.register(
        "net",
        &net_help(),
        Arc::new(move |spec| build_net(spec, &rules, &cache)),
    );
}

/// The classic players and `net:` for games under `rules`.
///
/// # Examples
///
/// ```
/// use shax_core::Rules;
///
/// let reg = shax_nn::registry(Rules::default());
/// assert!(reg.kinds().any(|(k, _)| k == "net"));
/// let e = reg.build_str("net:missing.bpk").unwrap_err().to_string();
/// assert!(e.contains("missing"), "{e}");
/// ```
pub fn registry(rules: Rules) -> Registry {
    let mut r = Registry::classic();
    register_net(&mut r, rules, WeightsCache::default());
    r
}

fn build_net(
    spec: &PlayerSpec,
    rules: &Rules,
    cache: &WeightsCache,
) -> Result<Box<dyn Player>, SpecError> {
    let NetSpec {
        path,
        config,
        temperature,
        place_sims,
        syms,
        guard,
    } = search_config(spec)?;
    let build_err = |why: String| SpecError::Build {
        kind: spec.kind.clone(),
        why,
    };
    let weights = cache.get(PathBuf::from(path), rules).map_err(build_err)?;
    let evaluator = weights
        .evaluator()
        .map_err(|e| build_err(e.to_string()))?
        .with_preferred_batch(config.leaves_per_batch);
    let evaluator: Box<dyn Evaluator + Send> = if syms == 1 {
        Box::new(evaluator)
    } else {
        Box::new(SymmetryAverage::new(evaluator, syms).expect("checked by search_config"))
    };
    let mut player = NeuralPlayer::new(spec.to_string(), config, evaluator)
        .with_temperature(temperature)
        .with_network(path);
    if let Some(sims) = place_sims {
        player = player.with_place_sims(sims);
    }
    if let Some(g) = guard {
        player = player.with_guard(Guard::new(g.nodes, g.margin).with_behind(g.behind));
    }
    Ok(Box::new(player))
}

/// What a `net:` spec asks for.
#[derive(Debug)]
struct NetSpec<'a> {
    /// The checkpoint's path.
    path: &'a str,
    config: PuctConfig,
    /// The move temperature.
    temperature: f32,
    /// The simulations of a decision to place a piece, if not the config's.
    place_sims: Option<u32>,
    /// The symmetries the network is averaged over.
    syms: usize,
    /// The guard, if any.
    guard: Option<GuardSpec>,
}

/// What a `net:` spec asks of its guard.
#[derive(Debug, PartialEq)]
struct GuardSpec {
    nodes: u64,
    margin: i32,
    /// The nodes of the second look where the player is behind (0: none).
    behind: u64,
}

fn search_config(spec: &PlayerSpec) -> Result<NetSpec<'_>, SpecError> {
    spec.check_params(&[
        SIMS.key,
        PLACE.key,
        BATCH.key,
        TEMP.key,
        CPUCT.key,
        FPU.key,
        PTEMP.key,
        SOLVER.key,
        EARLY.key,
        TWOFOLD.key,
        CACHE.key,
        DRAW.key,
        SYMS.key,
        GUARD.key,
        MARGIN.key,
        BEHIND.key,
        SEED.key,
    ])?;
    let args_err = |why: String| SpecError::Arguments {
        kind: spec.kind.clone(),
        why,
    };
    let Some(path) = spec.args.first() else {
        return Err(args_err(
            "needs a checkpoint path: net:<checkpoint>,sims=N".to_string(),
        ));
    };
    let mut gumbel = false;
    for extra in &spec.args[1..] {
        match extra.as_str() {
            "gumbel" => gumbel = true,
            other => return Err(args_err(format!("unknown flag '{other}' (flags: gumbel)"))),
        }
    }
    let sims = spec.get_or(SIMS, DEFAULT_SIMS)?;
    let place_sims = spec.get(PLACE)?;
    let batch = spec.get_or(BATCH, DEFAULT_BATCH)?;
    let syms = spec.get_or(SYMS, 1)?;
    if !SYMMETRY_SIZES.contains(&syms) {
        return Err(args_err(format!("syms={syms}: must be 1, 2, 4, 8 or 16")));
    }
    let config = PuctConfig {
        simulations: sims,
        c_init: spec.get_or(CPUCT, DEFAULT_CPUCT)?,
        fpu_reduction: spec.get_or(FPU, DEFAULT_FPU)?,
        policy_temperature: spec.get_or(PTEMP, DEFAULT_PTEMP)?,
        leaves_per_batch: batch.min(sims.max(place_sims.unwrap_or(0)) as usize),
        gumbel: gumbel.then(GumbelConfig::default),
        solver: spec.get_or(SOLVER, 0)? == 1,
        stop_when_decided: spec.get_or(EARLY, 1)? == 1,
        two_fold_draws: spec.get_or(TWOFOLD, 0)? == 1,
        eval_cache: spec.get_or(CACHE, 1)? == 1,
        draw_score: spec.get_or(DRAW, 0.0)?,
        ..PuctConfig::default()
    };
    Ok(NetSpec {
        path,
        config,
        temperature: spec.get_or(TEMP, 0.0)?,
        place_sims,
        syms,
        guard: guard_config(spec)?,
    })
}

/// `guard=N[,margin=M][,behind=B]`: the guard's nodes, margin and nodes
/// where behind; a margin or `behind` without a guard is an error.
fn guard_config(spec: &PlayerSpec) -> Result<Option<GuardSpec>, SpecError> {
    let margin = spec.get(MARGIN)?;
    let behind = spec.get(BEHIND)?;
    match spec.get(GUARD)? {
        Some(nodes) => Ok(Some(GuardSpec {
            nodes,
            margin: margin.map_or(Guard::DEFAULT_MARGIN, |m| m as i32),
            behind: behind.unwrap_or(0),
        })),
        None if margin.is_some() || behind.is_some() => {
            // The letters of the README's spec line.
            let (key, value) = if margin.is_some() {
                (MARGIN.key, "M")
            } else {
                (BEHIND.key, "B")
            };
            Err(SpecError::Arguments {
                kind: spec.kind.clone(),
                why: format!("{key}={value} needs guard=G (the guard's alpha-beta nodes)"),
            })
        }
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(spec: &str) -> PuctConfig {
        search_config(&spec.parse().unwrap()).unwrap().config
    }

    /// Regression (issue 11): `sims=64` evaluated 8 leaves a call, a wider and
    /// weaker search than 64 simulations of PUCT.
    #[test]
    fn a_search_takes_one_leaf_a_call_unless_asked_for_more() {
        assert_eq!(config("net:a.bpk,sims=64").leaves_per_batch, 1);
        assert_eq!(config("net:a.bpk,sims=64,batch=8").leaves_per_batch, 8);
        assert_eq!(config("net:a.bpk,sims=16,batch=32").leaves_per_batch, 16);
        let c = config("net:a.bpk,gumbel,sims=2048,batch=32");
        assert_eq!((c.simulations, c.leaves_per_batch), (2048, 32));
        assert!(c.gumbel.is_some());
    }

    #[test]
    fn exploration_and_first_play_urgency_are_settable() {
        let c = config("net:a.bpk");
        assert_eq!((c.c_init, c.fpu_reduction), (DEFAULT_CPUCT, DEFAULT_FPU));
        let c = config("net:a.bpk,cpuct=2.5,fpu=0.5");
        assert_eq!((c.c_init, c.fpu_reduction), (2.5, 0.5));
        assert_eq!(config("net:a.bpk").policy_temperature, 1.0);
        assert_eq!(config("net:a.bpk,ptemp=1.5").policy_temperature, 1.5);
    }

    #[test]
    fn placing_takes_the_simulations_of_the_rest_unless_told() {
        let place = |s: &str| search_config(&s.parse().unwrap()).unwrap().place_sims;
        assert_eq!(place("net:a.bpk,sims=100"), None);
        assert_eq!(place("net:a.bpk,sims=100,place=400"), Some(400));
        // A batch fits the larger budget.
        assert_eq!(
            config("net:a.bpk,sims=4,place=400,batch=32").leaves_per_batch,
            32
        );
    }

    #[test]
    fn the_solver_is_off_unless_asked_for() {
        assert!(!config("net:a.bpk").solver);
        assert!(!config("net:a.bpk,solver=0").solver);
        assert!(config("net:a.bpk,solver=1").solver);
    }

    #[test]
    fn repetitions_are_draws_at_the_second_only_when_asked() {
        assert!(!config("net:a.bpk").two_fold_draws);
        assert!(config("net:a.bpk,twofold=1").two_fold_draws);
        assert_eq!(config("net:a.bpk").draw_score, 0.0);
        assert_eq!(config("net:a.bpk,draw=0.3").draw_score, 0.3);
    }

    #[test]
    fn transpositions_reuse_the_network_answer_unless_told_not_to() {
        assert!(config("net:a.bpk").eval_cache);
        assert!(!config("net:a.bpk,cache=0").eval_cache);
    }

    #[test]
    fn the_network_is_averaged_over_symmetries_only_when_asked() {
        let syms = |s: &str| search_config(&s.parse().unwrap()).map(|c| c.syms);
        assert_eq!(syms("net:a.bpk").unwrap(), 1);
        assert_eq!(syms("net:a.bpk,syms=8").unwrap(), 8);
        let e = syms("net:a.bpk,syms=3").unwrap_err().to_string();
        assert!(
            e.contains("syms=3") && e.contains("1, 2, 4, 8 or 16"),
            "{e}"
        );
        assert!(
            syms("net:a.bpk,syms=32")
                .unwrap_err()
                .to_string()
                .contains("syms")
        );
    }

    #[test]
    fn a_search_stops_once_decided_unless_told_not_to() {
        assert!(config("net:a.bpk").stop_when_decided);
        assert!(!config("net:a.bpk,early=0").stop_when_decided);
    }

    #[test]
    fn a_guard_reviews_choices_only_when_asked() {
        let guard = |s: &str| search_config(&s.parse().unwrap()).unwrap().guard;
        let spec = |nodes, margin, behind| {
            Some(GuardSpec {
                nodes,
                margin,
                behind,
            })
        };
        assert_eq!(guard("net:a.bpk"), None);
        assert_eq!(
            guard("net:a.bpk,guard=5000"),
            spec(5000, Guard::DEFAULT_MARGIN, 0)
        );
        assert_eq!(guard("net:a.bpk,guard=5000,margin=80"), spec(5000, 80, 0));
        assert_eq!(
            guard("net:a.bpk,guard=5000,behind=20000"),
            spec(5000, Guard::DEFAULT_MARGIN, 20000)
        );
    }

    #[test]
    fn a_bad_spec_names_what_is_wrong() {
        let err = |s: &str| search_config(&s.parse().unwrap()).unwrap_err().to_string();
        assert!(err("net:a.bpk,batch=0").contains("batch"));
        assert!(err("net:a.bpk,fast").contains("fast"));
        assert!(err("net").contains("checkpoint path"));
        assert!(err("net:a.bpk,fpu=-1").contains("fpu"));
        assert!(err("net:a.bpk,cpuct=x").contains("cpuct"));
        assert!(err("net:a.bpk,ptemp=0").contains("ptemp"));
        assert!(err("net:a.bpk,solver=2").contains("solver"));
        assert!(err("net:a.bpk,twofold=2").contains("twofold"));
        assert!(err("net:a.bpk,guard=0").contains("guard"));
        assert!(err("net:a.bpk,draw=1").contains("draw"));
        assert!(err("net:a.bpk,margin=100").contains("margin=M needs guard"));
        assert!(err("net:a.bpk,behind=100").contains("behind=B needs guard"));
        assert!(err("net:a.bpk,guard=10,behind=0").contains("behind"));
        assert!(err("net:a.bpk,place=0").contains("place"));
    }
}
