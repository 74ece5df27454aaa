//! The player registry of the binary: the classic players of `shax-search`
//! and `net:<checkpoint>`, the MCTS guided by a network (`tier:` joins with
//! the difficulty tiers).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use shax_core::Rules;
use shax_nn::{NetWeights, load_weights};
use shax_search::{
    GumbelConfig, NeuralPlayer, Player, PlayerSpec, PuctConfig, Registry, SpecError,
};

/// Every player kind this binary can build from a spec, for games under `rules`
/// (a network player refuses a checkpoint trained for other rules).
pub fn registry(rules: Rules) -> Registry {
    let mut r = Registry::classic();
    let cache: Arc<Mutex<HashMap<PathBuf, NetWeights>>> = Arc::default();
    r.register(
        "net",
        "net:<checkpoint>[,sims=N][,gumbel][,batch=B] - MCTS guided by a network checkpoint (sims default 64)",
        Arc::new(move |spec| build_net(spec, &rules, &cache)),
    );
    r
}

const NET_PARAMS: &str = "sims, batch";

fn net_param(
    spec: &PlayerSpec,
    key: &str,
    min: u64,
    max: u64,
    default: u64,
) -> Result<u64, SpecError> {
    let Some(text) = spec.param(key) else {
        return Ok(default);
    };
    let bad = |why: &str| SpecError::BadValue {
        kind: spec.kind.clone(),
        param: key.to_string(),
        value: text.to_string(),
        why: why.to_string(),
    };
    let v: u64 = text.parse().map_err(|_| bad("expected a whole number"))?;
    if !(min..=max).contains(&v) {
        return Err(SpecError::OutOfRange {
            kind: spec.kind.clone(),
            param: key.to_string(),
            value: text.to_string(),
            min: min.to_string(),
            max: max.to_string(),
        });
    }
    Ok(v)
}

fn build_net(
    spec: &PlayerSpec,
    rules: &Rules,
    cache: &Mutex<HashMap<PathBuf, NetWeights>>,
) -> Result<Box<dyn Player>, SpecError> {
    for (k, _) in &spec.params {
        if !NET_PARAMS.split(", ").any(|p| p == k) {
            return Err(SpecError::UnknownParam {
                kind: spec.kind.clone(),
                param: k.clone(),
                known: NET_PARAMS.to_string(),
            });
        }
    }
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
    let sims = net_param(spec, "sims", 1, 1_000_000, 64)? as u32;
    let batch = net_param(spec, "batch", 1, 1024, 8)? as usize;
    let path = PathBuf::from(path);
    let weights = {
        let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
        match cache.get(&path) {
            Some(w) => w.clone(),
            None => {
                let (_, w) = load_weights(&path, Some(rules)).map_err(|e| SpecError::Build {
                    kind: spec.kind.clone(),
                    why: e.to_string(),
                })?;
                cache.insert(path.clone(), w.clone());
                w
            }
        }
    };
    let evaluator = weights
        .evaluator()
        .map_err(|e| SpecError::Build {
            kind: spec.kind.clone(),
            why: e.to_string(),
        })?
        .with_preferred_batch(batch);
    let config = PuctConfig {
        simulations: sims,
        leaves_per_batch: batch,
        gumbel: gumbel.then(GumbelConfig::default),
        ..PuctConfig::default()
    };
    Ok(Box::new(NeuralPlayer::new(
        spec.to_string(),
        config,
        Box::new(evaluator),
    )))
}

/// Splits a list of player specs. Specs are separated by `;`, or by `,` where
/// the next item is not a `key=value` parameter of the spec before it, so
/// `random,mcts:sims=50,c=1.4,alphabeta:depth=3` is three specs.
pub fn split_specs(list: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for group in list.split(';') {
        let mut first = true;
        for item in group.split(',') {
            let item = item.trim();
            let is_param = item.contains('=') && !item.contains(':');
            match out.last_mut() {
                Some(last) if is_param && !first => {
                    last.push(',');
                    last.push_str(item);
                }
                _ => out.push(item.to_string()),
            }
            first = false;
        }
    }
    out.retain(|s| !s.is_empty());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_keeps_parameters_with_their_spec() {
        assert_eq!(
            split_specs("random,mcts:sims=50,c=1.4,alphabeta:depth=3"),
            ["random", "mcts:sims=50,c=1.4", "alphabeta:depth=3"]
        );
        assert_eq!(split_specs("greedy; random"), ["greedy", "random"]);
    }
}
