//! What the server holds for its lifetime: each rule set's tiers and player
//! registry (networks loaded once and shared), a pool of idle tier players,
//! and the bounded search pool (a semaphore of workers and a bounded queue).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use shax_bot::{BotError, TierManifest, find_manifest, resolve_tier_spec};
use shax_core::{Preset, Rules};
use shax_search::{Player, Registry};
use tokio::sync::Semaphore;

/// How the server is set up (the flags of `shax serve`).
#[derive(Clone, Debug)]
pub struct ServeConfig {
    /// Where tier manifests are looked for: `<dir>/<rules>/tiers.toml`.
    /// `None`: shax-bot's places (`$SHAX_CHECKPOINTS`, `./checkpoints`, the source tree).
    pub checkpoints: Option<PathBuf>,
    /// Searches that run at once.
    pub workers: usize,
    /// Move requests that may wait for a worker; more get 503.
    pub queue: usize,
    /// The longest a move request may take, waiting included; its search
    /// stops there (a 503).
    pub move_timeout: std::time::Duration,
    /// The origin allowed by CORS (none: same origin only).
    pub allow_origin: Option<String>,
    /// One log line per request on stderr.
    pub log: bool,
}

impl ServeConfig {
    /// Defaults: a worker per core, a queue of 16 per worker, 10 s per move request.
    pub fn new() -> ServeConfig {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        ServeConfig {
            checkpoints: None,
            workers: cores,
            queue: 16 * cores,
            move_timeout: std::time::Duration::from_secs(10),
            allow_origin: None,
            log: true,
        }
    }
}

impl Default for ServeConfig {
    fn default() -> ServeConfig {
        ServeConfig::new()
    }
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// A tier manifest that exists but does not load, or a tier that does not build.
    #[error(transparent)]
    Tiers(#[from] BotError),
    /// A bad setting.
    #[error("{0}")]
    Config(String),
    /// The address could not be bound or served.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// One tier as served: its manifest entry and its spec with the checkpoint
/// path resolved (never shown to clients).
#[derive(Clone, Debug)]
pub struct ServedTier {
    /// The manifest's entry.
    pub entry: shax_bot::TierEntry,
    /// The spec the player is built from.
    pub resolved: String,
}

/// A rule set as served.
pub struct RuleSet {
    /// The rules.
    pub rules: Rules,
    /// Its tiers, weakest first (empty when none are shipped).
    pub tiers: Vec<ServedTier>,
    /// Builds its players; `net:` weights are cached inside, loaded once.
    pub registry: Registry,
}

/// Idle tier players kept between requests, by rule set and tier spec.
type IdlePlayers = HashMap<(Preset, String), Vec<Box<dyn Player>>>;

/// The server's state, shared by every request.
pub struct AppState {
    /// The setup.
    pub config: ServeConfig,
    /// Every preset, the default first.
    pub rule_sets: Vec<RuleSet>,
    /// Searches running.
    pub workers: Arc<Semaphore>,
    /// Move requests admitted (running or waiting).
    pub admitted: AtomicUsize,
    idle: Mutex<IdlePlayers>,
}

/// The manifest of `rules` under `dir`, or shax-bot's places; `None` when there is none.
fn manifest_of(
    dir: Option<&Path>,
    rules: &Rules,
) -> Result<Option<(PathBuf, TierManifest)>, BotError> {
    match dir {
        Some(dir) => {
            let path = dir.join(rules.name()).join("tiers.toml");
            if !path.exists() {
                return Ok(None);
            }
            let m = TierManifest::load(&path)?;
            if m.rules != rules.name() {
                return Err(BotError::Manifest {
                    path,
                    message: format!("made for rules '{}', not '{}'", m.rules, rules.name()),
                });
            }
            Ok(Some((path, m)))
        }
        None => match find_manifest(rules) {
            Ok(found) => Ok(Some(found)),
            Err(BotError::NoTiers { .. }) => Ok(None),
            Err(e) => Err(e),
        },
    }
}

impl AppState {
    /// Loads every preset's tiers and builds one player of each (so a
    /// network that does not load stops the start, not a request).
    ///
    /// # Errors
    ///
    /// [`ServeError`] naming the manifest or tier at fault, or a bad setting.
    pub fn new(config: ServeConfig) -> Result<AppState, ServeError> {
        if config.workers == 0 || config.workers > 1024 {
            return Err(ServeError::Config(format!(
                "workers must be 1 to 1024, got {}",
                config.workers
            )));
        }
        let state = AppState {
            workers: Arc::new(Semaphore::new(config.workers)),
            admitted: AtomicUsize::new(0),
            idle: Mutex::new(HashMap::new()),
            rule_sets: Vec::new(),
            config,
        };
        let mut rule_sets = Vec::new();
        for preset in Preset::ALL {
            let rules = Rules::preset(preset);
            let mut tiers = Vec::new();
            if let Some((path, m)) = manifest_of(state.config.checkpoints.as_deref(), &rules)? {
                for entry in m.tiers {
                    let resolved = resolve_tier_spec(&path, &entry)?;
                    tiers.push(ServedTier { entry, resolved });
                }
            }
            let set = RuleSet {
                rules,
                tiers,
                registry: shax_bot::registry(rules),
            };
            for t in &set.tiers {
                let p = set
                    .registry
                    .build_str(&t.resolved)
                    .map_err(BotError::from)?;
                state.put_back(preset, &t.resolved, p);
            }
            rule_sets.push(set);
        }
        Ok(AppState { rule_sets, ..state })
    }

    /// The rule set of a preset name.
    pub fn rule_set(&self, name: &str) -> Option<&RuleSet> {
        self.rule_sets
            .iter()
            .find(|s| s.rules.preset.name() == name)
    }

    /// An idle player of `spec` from the pool, or a new one.
    pub fn take_player(
        &self,
        set: &RuleSet,
        spec: &str,
    ) -> Result<Box<dyn Player>, shax_search::SpecError> {
        let key = (set.rules.preset, spec.to_string());
        let pooled = self
            .idle
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_mut(&key)
            .and_then(Vec::pop);
        match pooled {
            Some(p) => Ok(p),
            None => set.registry.build_str(spec),
        }
    }

    /// Returns a tier player to the pool (at most one per worker is kept).
    pub fn put_back(&self, preset: Preset, spec: &str, player: Box<dyn Player>) {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        let list = idle.entry((preset, spec.to_string())).or_default();
        if list.len() < self.config.workers {
            list.push(player);
        }
    }

    /// Admits a move request if the queue has room: the ticket frees its
    /// place when dropped.
    pub fn admit(self: &Arc<Self>) -> Option<Ticket> {
        let cap = self.config.workers + self.config.queue;
        let mut n = self.admitted.load(Ordering::Relaxed);
        loop {
            if n >= cap {
                return None;
            }
            match self
                .admitted
                .compare_exchange_weak(n, n + 1, Ordering::AcqRel, Ordering::Relaxed)
            {
                Ok(_) => return Some(Ticket(Arc::clone(self))),
                Err(now) => n = now,
            }
        }
    }
}

/// A place in the move queue (running or waiting), freed on drop.
pub struct Ticket(Arc<AppState>);

impl Drop for Ticket {
    fn drop(&mut self) {
        self.0.admitted.fetch_sub(1, Ordering::AcqRel);
    }
}
