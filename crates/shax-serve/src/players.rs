//! Which players a request may ask for: the tiers of its rule set, and the
//! classic players with capped budgets. `net:` is refused (it names a file);
//! tiers are looked up by name in the manifest the server loaded, so no path
//! ever comes from a request.

use shax_search::{Param, PlayerSpec};

use crate::error::ApiError;
use crate::state::RuleSet;

/// The most time a classic player may be given per move, in milliseconds.
pub const MAX_MS: u64 = 5_000;
/// The largest alpha-beta transposition table, MiB.
pub const MAX_TT_MIB: u64 = 64;
/// The deepest alpha-beta search without a time limit (`ms`).
pub const MAX_DEPTH_UNTIMED: u64 = 6;
/// The most alpha-beta nodes.
pub const MAX_NODES: u64 = 10_000_000;
/// The most UCT simulations.
pub const MAX_SIMS: u64 = 100_000;

/// A player a request may have.
#[derive(Clone, Debug, PartialEq)]
pub struct Chosen {
    /// What the client asked for, canonical (`tier:medium`, `alphabeta:depth=4`).
    pub shown: String,
    /// The spec to build (a tier's spec with its checkpoint resolved).
    pub build: String,
    /// Whether the player is kept in the pool between requests (tiers).
    pub pooled: bool,
}

/// The player of a `tier` field.
///
/// # Errors
///
/// 400 naming the field: no tiers for these rules, or an unknown tier.
pub fn tier(set: &RuleSet, field: &str, name: &str) -> Result<Chosen, ApiError> {
    let rules = set.rules.preset.name();
    if set.tiers.is_empty() {
        return Err(ApiError::bad_field(
            field,
            format!("rules '{rules}' have no tiers yet; ask for a classic player with 'player'"),
        ));
    }
    let Some(t) = set.tiers.iter().find(|t| t.entry.name == name) else {
        let known: Vec<_> = set.tiers.iter().map(|t| t.entry.name.as_str()).collect();
        return Err(ApiError::bad_field(
            field,
            format!(
                "unknown tier '{name}' for rules '{rules}' (tiers: {})",
                known.join(", ")
            ),
        ));
    };
    Ok(Chosen {
        shown: format!("tier:{name}"),
        build: t.resolved.clone(),
        pooled: true,
    })
}

/// The value of `key` in `spec`, refused outside `1..=max`.
fn cap(spec: &PlayerSpec, key: &'static str, max: u64) -> Result<Option<u64>, ApiError> {
    spec.get(Param::new(key, 1, max))
        .map_err(|e| ApiError::bad_field("player", format!("{e} on this server")))
}

/// The player of a `player` field: a tier (`tier:<name>`) or a classic
/// player within the server's caps.
///
/// # Errors
///
/// 400 naming `player`: a spec that does not parse, a refused kind, a budget
/// over its cap.
pub fn player(set: &RuleSet, text: &str) -> Result<Chosen, ApiError> {
    let spec: PlayerSpec = text.parse().map_err(|e| ApiError::bad_field("player", e))?;
    match spec.kind.as_str() {
        "tier" => {
            let [name] = spec.args.as_slice() else {
                return Err(ApiError::bad_field(
                    "player",
                    "tier:<name> takes one tier name",
                ));
            };
            if !spec.params.is_empty() {
                return Err(ApiError::bad_field(
                    "player",
                    "tier:<name> takes no parameters",
                ));
            }
            return tier(set, "player", name);
        }
        "random" | "greedy" => {}
        "alphabeta" => {
            let ms = cap(&spec, "ms", MAX_MS)?;
            cap(&spec, "tt", MAX_TT_MIB)?;
            cap(&spec, "nodes", MAX_NODES)?;
            if ms.is_none() {
                cap(&spec, "depth", MAX_DEPTH_UNTIMED).map_err(|e| ApiError {
                    message: format!("{} (or give ms=1..{MAX_MS})", e.message),
                    ..e
                })?;
            }
        }
        "mcts" => {
            cap(&spec, "ms", MAX_MS)?;
            cap(&spec, "sims", MAX_SIMS)?;
        }
        "net" => {
            return Err(ApiError::bad_field(
                "player",
                "'net' players are not served (they name a file): ask for a tier",
            ));
        }
        other => {
            return Err(ApiError::bad_field(
                "player",
                format!(
                    "unknown player '{other}' (served: tier:<name>, random, greedy, \
                     alphabeta (ms<={MAX_MS}, tt<={MAX_TT_MIB}, depth<={MAX_DEPTH_UNTIMED} \
                     without ms), mcts (sims<={MAX_SIMS}, ms<={MAX_MS}))"
                ),
            ));
        }
    }
    // The kind's own checks (unknown parameters, bad values), before any search.
    let built = set
        .registry
        .build(&spec)
        .map_err(|e| ApiError::bad_field("player", e))?;
    Ok(Chosen {
        shown: built.spec(),
        build: spec.to_string(),
        pooled: false,
    })
}
