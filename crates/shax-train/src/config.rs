//! The training config: one TOML file, read once at the boundary into a
//! [`TrainConfig`] whose every value is in range.
//!
//! Sections: `rules` (a preset name, or a table: `preset` plus overrides),
//! `backend`, `[model]` ([`ModelConfig`] keys), `[selfplay]`, `[train]`,
//! `[eval]`, `[run]`. Every key is optional (the defaults are those of
//! [`TrainConfig::default`]); an unknown key, a wrong type or a value out of
//! range is an error naming the file and the key (`selfplay.sims`), before any
//! work starts. `configs/*.toml` comment every key.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use shax_core::Rules;
use shax_nn::{Backend, ModelConfig, ModelConfigError};
use shax_search::PuctConfig;

/// A config that cannot be used, naming the file and the key.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file cannot be read.
    #[error("config {path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// The system's message.
        message: String,
    },
    /// Malformed TOML, an unknown key, a wrong type or a value out of range.
    #[error("config {path}: key `{key}`: {message}")]
    Key {
        /// The file.
        path: String,
        /// The key, `section.name`.
        key: String,
        /// What is wrong.
        message: String,
    },
    /// Malformed TOML where no key can be named.
    #[error("config {path}: {message}")]
    Toml {
        /// The file.
        path: String,
        /// What is wrong, with the line.
        message: String,
    },
}

/// Playing the games.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SelfPlayConfig {
    /// Worker threads, each with its own network copy; 0: one per core.
    pub workers: usize,
    /// Games each worker plays at once (their leaves share one network call).
    pub games_in_flight: usize,
    /// Simulations of a full search (the moves whose policy is trained on).
    pub sims: u32,
    /// Gumbel root (sequential halving, improved-policy targets) instead of PUCT + Dirichlet noise.
    pub gumbel: bool,
    /// Actions the Gumbel root considers (halved each phase).
    pub gumbel_considered: usize,
    /// Move-selection temperature for the first `temperature_moves` actions of a game:
    /// PUCT samples by `visits^(1/t)`; a Gumbel root scales its noise by it (1: Gumbel
    /// MuZero's sampling).
    pub temperature: f32,
    /// Actions played at `temperature`; then `final_temperature`.
    pub temperature_moves: u32,
    /// Temperature after the first `temperature_moves` actions (0: no noise: the most
    /// visited action with PUCT, the best of `logit + sigma(Q)` with a Gumbel root).
    pub final_temperature: f32,
    /// Dirichlet noise concentration at a PUCT root.
    pub dirichlet_alpha: f32,
    /// Weight of the noise (full searches only; 0 turns it off).
    pub dirichlet_epsilon: f32,
    /// Playout cap randomization: the fraction of moves searched fully and trained on.
    pub full_search_fraction: f32,
    /// The same fraction for decisions to place a piece, where the mill games are
    /// decided; unset: `full_search_fraction`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub place_full_search_fraction: Option<f32>,
    /// Simulations of the other (fast, not trained on) moves.
    pub fast_sims: u32,
    /// Leaves one game puts into a network batch (virtual loss spreads them).
    pub leaves_per_batch: usize,
    /// `c_init` of the searches' PUCT exploration term (default: the search's own, AlphaZero's 1.25).
    pub c_puct: f32,
    /// First-play urgency: an unvisited child counts as its parent's value minus this.
    pub fpu_reduction: f32,
    /// Uniformly random legal actions that start each game before the first search
    /// (recorded in the game, never trained on), as the evaluations' openings are.
    pub opening_plies: u32,
    /// Game records (JSON lines, as `shax arena --out` writes them, of games under
    /// the run's rules) whose positions start `start_fraction` of the games; empty:
    /// none. A path relative to the working directory of `shax train`.
    pub start_records: String,
    /// The share of games that start at a position of `start_records` (one after its
    /// opening and before its end, each with equal chance) instead of the rules'
    /// start and `opening_plies` random actions.
    pub start_fraction: f32,
}

impl Default for SelfPlayConfig {
    fn default() -> Self {
        let search = PuctConfig::default();
        SelfPlayConfig {
            workers: 0,
            games_in_flight: 32,
            sims: 32,
            gumbel: true,
            gumbel_considered: 8,
            temperature: 1.0,
            temperature_moves: 16,
            final_temperature: 0.0,
            dirichlet_alpha: 0.3,
            dirichlet_epsilon: 0.25,
            full_search_fraction: 0.25,
            place_full_search_fraction: None,
            fast_sims: 8,
            leaves_per_batch: 1,
            c_puct: search.c_init,
            fpu_reduction: search.fpu_reduction,
            opening_plies: 0,
            start_records: String::new(),
            start_fraction: 0.0,
        }
    }
}

/// Which optimizer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Optimizer {
    /// Adam, with weight decay decoupled from the gradient (AdamW).
    Adam,
    /// SGD with momentum.
    SgdMomentum,
}

/// The learning-rate schedule after warm-up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LrSchedule {
    /// `lr` throughout.
    Constant,
    /// Cosine from `lr` down to `lr * lr_final_fraction` at the end of the
    /// run: `run.total_steps` or `run.hours`, whichever comes first (the
    /// schedule follows whichever share of the run is further).
    Cosine,
    /// `lr` times `lr_step_gamma` every `lr_step_every` steps.
    Step,
}

/// The actions the policy loss's softmax spans.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PolicyActions {
    /// All of the policy head's 600.
    All,
    /// Those the rules can ever make legal ([`Rules::policy_support`]: 112
    /// in Shax, all 600 where a player may fly). Search never reads the
    /// others' logits, and the training step on the CPU skips their columns
    /// of the policy head.
    Reachable,
}

impl PolicyActions {
    /// The policy indices the loss spans under `rules`, ascending.
    pub fn support(self, rules: &Rules) -> Vec<usize> {
        match self {
            PolicyActions::All => (0..shax_core::POLICY_SIZE).collect(),
            PolicyActions::Reachable => rules.policy_support(),
        }
    }
}

/// Training the network.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrainSection {
    /// Positions per training step.
    pub batch_size: usize,
    /// `adam` or `sgd-momentum`.
    pub optimizer: Optimizer,
    /// Peak learning rate.
    pub lr: f64,
    /// Linear warm-up from 0 over these steps.
    pub warmup_steps: u64,
    /// `constant`, `cosine` or `step`.
    pub lr_schedule: LrSchedule,
    /// Cosine: the final learning rate as a fraction of `lr`.
    pub lr_final_fraction: f64,
    /// Step: steps between decays.
    pub lr_step_every: u64,
    /// Step: the factor of each decay.
    pub lr_step_gamma: f64,
    /// SGD momentum.
    pub momentum: f64,
    /// Weight decay of the weight matrices (not biases or layer norms):
    /// decoupled with Adam (`w -= lr * weight_decay * w` each step), L2 with SGD.
    pub weight_decay: f64,
    /// Training steps between checkpoints (each becomes the workers' network).
    pub steps_per_checkpoint: u64,
    /// Training samples drawn per new self-play position (data reuse).
    pub samples_per_position: f64,
    /// Replay window: all positions until this many, then it grows sub-linearly.
    pub window_min: u64,
    /// Replay window: at most this many positions.
    pub window_max: u64,
    /// Window growth exponent (KataGo: 0.75).
    pub window_exponent: f64,
    /// Window growth factor beta (KataGo: 0.4).
    pub window_beta: f64,
    /// The share of the search's root value in the value target, the rest
    /// the game's result (0: the result alone, as AlphaZero).
    pub search_value_weight: f64,
    /// The material head's loss weight in the total loss (used only when
    /// `model.material_head` is on).
    pub material_weight: f64,
    /// The actions the policy loss's softmax spans.
    pub policy_actions: PolicyActions,
}

impl Default for TrainSection {
    fn default() -> Self {
        TrainSection {
            batch_size: 256,
            optimizer: Optimizer::Adam,
            lr: 1e-3,
            warmup_steps: 100,
            lr_schedule: LrSchedule::Cosine,
            lr_final_fraction: 0.1,
            lr_step_every: 10_000,
            lr_step_gamma: 0.3,
            momentum: 0.9,
            weight_decay: 1e-4,
            steps_per_checkpoint: 200,
            samples_per_position: 4.0,
            window_min: 20_000,
            window_max: 500_000,
            window_exponent: 0.75,
            window_beta: 0.4,
            search_value_weight: 0.0,
            material_weight: 1.0,
            policy_actions: PolicyActions::All,
        }
    }
}

impl TrainSection {
    /// The replay window's size in positions after `total` positions were played
    /// (KataGo's: all of them up to `window_min`, then
    /// `c (1 + beta ((n / c)^alpha - 1) / alpha)` with `c = window_min`, capped at `window_max`).
    pub fn window(&self, total: u64) -> u64 {
        let c = self.window_min.max(1) as f64;
        let n = total as f64;
        let size = if n <= c {
            n
        } else {
            let a = self.window_exponent;
            c * (1.0 + self.window_beta * ((n / c).powf(a) - 1.0) / a)
        };
        (size as u64).min(self.window_max).min(total)
    }

    /// The learning rate of `step` (0-based) in a run of `total_steps` of
    /// which `time_fraction` of the time limit has passed (0 without one).
    /// Warm-up counts steps; the cosine follows the run's progress, the
    /// further of its steps after warm-up and its time, so a run stopped by
    /// its hours ends its cosine too; the step schedule counts steps.
    pub fn lr_at(&self, step: u64, total_steps: u64, time_fraction: f64) -> f64 {
        if step < self.warmup_steps {
            return self.lr * (step + 1) as f64 / self.warmup_steps as f64;
        }
        match self.lr_schedule {
            LrSchedule::Constant => self.lr,
            LrSchedule::Cosine => {
                let span = total_steps.saturating_sub(self.warmup_steps).max(1) as f64;
                let by_steps = (step - self.warmup_steps) as f64 / span;
                let t = by_steps.max(time_fraction).clamp(0.0, 1.0);
                let lo = self.lr * self.lr_final_fraction;
                lo + (self.lr - lo) * 0.5 * (1.0 + (std::f64::consts::PI * t).cos())
            }
            LrSchedule::Step => {
                let k = (step - self.warmup_steps) / self.lr_step_every.max(1);
                self.lr * self.lr_step_gamma.powi(k.min(1000) as i32)
            }
        }
    }
}

/// Evaluation matches.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EvalConfig {
    /// Evaluate every this many checkpoints; 0: never.
    pub every_checkpoints: u64,
    /// Games per opponent (both colours equally).
    pub games: u32,
    /// Fixed opponents (player specs).
    pub baselines: Vec<String>,
    /// Simulations of the network player (`net:<checkpoint>,sims=N`: one leaf per network call).
    pub sims: u32,
    /// The network player uses the Gumbel root.
    pub gumbel: bool,
    /// Random opening actions per game (distinct openings, each with both colours).
    pub opening_plies: u32,
    /// Threads for the matches; 0: one per core.
    pub threads: usize,
    /// Games each match thread keeps going at once, the network players'
    /// leaves of all of them in one network call (1: one game at a time).
    pub games_in_flight: usize,
    /// Gating: a new network becomes the workers' only if it scores at least
    /// `gating_threshold` against the best so far.
    pub gating: bool,
    /// Gating score threshold.
    pub gating_threshold: f64,
}

impl Default for EvalConfig {
    fn default() -> Self {
        EvalConfig {
            every_checkpoints: 5,
            games: 40,
            baselines: ["random", "greedy", "alphabeta:depth=2", "alphabeta:depth=4"]
                .map(String::from)
                .to_vec(),
            sims: 64,
            gumbel: false,
            opening_plies: 4,
            threads: 0,
            games_in_flight: 32,
            gating: false,
            gating_threshold: 0.55,
        }
    }
}

/// How long and from which seed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RunConfig {
    /// Stop after this many training steps.
    pub total_steps: u64,
    /// Stop after this many hours of wall time (summed over resumes); 0: no limit.
    pub hours: f64,
    /// The master seed.
    pub seed: u64,
    /// A checkpoint (`net.bpk`, a shipped `step-*.bpk`, or a checkpoint
    /// folder) whose weights start a new run instead of random ones; the
    /// network's shape is then the checkpoint's, not `[model]`'s. The step
    /// counter, optimizer and replay window start afresh. A resumed run
    /// continues from its own checkpoint and ignores it.
    pub init: Option<PathBuf>,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            total_steps: 10_000,
            hours: 0.0,
            seed: 1,
            init: None,
        }
    }
}

/// The file as written: every section optional.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
struct ConfigFile {
    rules: Option<toml::Value>,
    backend: Option<String>,
    model: Option<toml::Table>,
    selfplay: SelfPlayConfig,
    train: TrainSection,
    eval: EvalConfig,
    run: RunConfig,
}

/// A resolved, checked training config.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainConfig {
    /// The rules of the games.
    pub rules: Rules,
    /// Where the network runs (trainer and workers).
    pub backend: Backend,
    /// The network.
    pub model: ModelConfig,
    /// Self-play.
    pub selfplay: SelfPlayConfig,
    /// Training.
    pub train: TrainSection,
    /// Evaluation.
    pub eval: EvalConfig,
    /// Run length and seed.
    pub run: RunConfig,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            rules: Rules::default(),
            backend: Backend::Cpu,
            model: ModelConfig::new(),
            selfplay: SelfPlayConfig::default(),
            train: TrainSection::default(),
            eval: EvalConfig::default(),
            run: RunConfig::default(),
        }
    }
}

/// `line N, key `section.key``: where a TOML error happened.
fn locate(text: &str, e: &toml::de::Error) -> (Option<String>, String) {
    let message = e.message().trim().replace('\n', "; ");
    let Some(span) = e.span() else {
        return (None, message);
    };
    let before = &text[..span.start.min(text.len())];
    let line_no = before.matches('\n').count() + 1;
    let mut section = String::new();
    for l in before.lines() {
        let t = l.trim();
        if t.starts_with('[') && t.ends_with(']') {
            section = t.trim_matches(|c| c == '[' || c == ']').trim().to_string();
        }
    }
    let line = text.lines().nth(line_no - 1).unwrap_or("");
    // An unknown field: serde names it in the message.
    let field = message
        .split('`')
        .nth(1)
        .filter(|_| message.starts_with("unknown field"))
        .map(str::to_string);
    let key = field.or_else(|| {
        line.split_once('=')
            .map(|(k, _)| k.trim().to_string())
            .filter(|k| !k.is_empty() && !k.starts_with('['))
    });
    let key = key.map(|k| {
        if section.is_empty() {
            k
        } else {
            format!("{section}.{k}")
        }
    });
    (key, format!("line {line_no}: {message}"))
}

/// Applies `--set` overrides to a config's text: each `KEY=VALUE` sets the
/// dotted key (`run.hours=0.5`, `model.value_head=scalar`) to the value read
/// as TOML (a number, `true`, a quoted string, an array), or as a plain string
/// when it does not parse. Returns the new text; [`TrainConfig::parse`] checks it.
///
/// # Errors
///
/// [`ConfigError::Key`] (file `--set`) for an override without `=` or with an
/// empty key, or a key whose section is not a table; [`ConfigError::Toml`]
/// when `text` itself is malformed.
///
/// # Examples
///
/// ```
/// use shax_train::{TrainConfig, apply_overrides};
///
/// let text = apply_overrides("[run]\nhours = 2.0\n", &["run.hours=0.5", "model.value_head=scalar"]).unwrap();
/// let c = TrainConfig::parse(&text, "x").unwrap();
/// assert_eq!(c.run.hours, 0.5);
/// assert!(apply_overrides("", &["run.hours"]).unwrap_err().to_string().contains("KEY=VALUE"));
/// ```
pub fn apply_overrides(text: &str, sets: &[&str]) -> Result<String, ConfigError> {
    let mut table: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| ConfigError::Toml {
            path: "--set".into(),
            message: e.message().trim().to_string(),
        })?;
    for set in sets {
        let err = |key: &str, message: &str| ConfigError::Key {
            path: "--set".into(),
            key: key.to_string(),
            message: message.to_string(),
        };
        let Some((key, raw)) = set.split_once('=').filter(|(k, _)| !k.trim().is_empty()) else {
            return Err(err(set, "expected KEY=VALUE, e.g. run.hours=0.5"));
        };
        let key = key.trim();
        let value = format!("v = {}", raw.trim())
            .parse::<toml::Table>()
            .ok()
            .and_then(|mut t| t.remove("v"))
            .unwrap_or_else(|| toml::Value::String(raw.trim().to_string()));
        let mut parts: Vec<&str> = key.split('.').collect();
        let last = parts.pop().unwrap_or(key);
        let mut at = &mut table;
        for part in parts {
            let entry = at
                .entry(part)
                .or_insert_with(|| toml::Value::Table(toml::Table::new()));
            at = entry
                .as_table_mut()
                .ok_or_else(|| err(key, &format!("`{part}` is not a table")))?;
        }
        at.insert(last.to_string(), value);
    }
    Ok(toml::to_string(&table).expect("a TOML table serialises"))
}

impl TrainConfig {
    /// Reads a config file.
    ///
    /// # Errors
    ///
    /// [`ConfigError`] naming the file (and the key) when it cannot be read,
    /// is malformed, has an unknown key or a value out of range.
    pub fn load(path: &Path) -> Result<TrainConfig, ConfigError> {
        TrainConfig::load_with(path, &[])
    }

    /// Reads a config file with `--set` overrides ([`apply_overrides`]).
    ///
    /// # Errors
    ///
    /// As [`TrainConfig::load`], and as [`apply_overrides`].
    pub fn load_with(path: &Path, sets: &[&str]) -> Result<TrainConfig, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        TrainConfig::parse_with(&text, &path.display().to_string(), sets)
    }

    /// Parses config text with `--set` overrides ([`apply_overrides`]); with
    /// none, exactly [`TrainConfig::parse`] (errors keep the file's lines).
    ///
    /// # Errors
    ///
    /// As [`TrainConfig::parse`], and as [`apply_overrides`].
    pub fn parse_with(text: &str, name: &str, sets: &[&str]) -> Result<TrainConfig, ConfigError> {
        if sets.is_empty() {
            return TrainConfig::parse(text, name);
        }
        TrainConfig::parse(&apply_overrides(text, sets)?, &format!("{name} with --set"))
    }

    /// Parses config text; `name` is the file's name for error messages.
    ///
    /// # Errors
    ///
    /// As [`TrainConfig::load`].
    ///
    /// # Examples
    ///
    /// ```
    /// use shax_train::TrainConfig;
    ///
    /// let c = TrainConfig::parse("rules = \"nine-mens-morris\"\n[selfplay]\nsims = 16\n", "x.toml").unwrap();
    /// assert_eq!(c.selfplay.sims, 16);
    /// let e = TrainConfig::parse("[selfplay]\nsimz = 16\n", "x.toml").unwrap_err().to_string();
    /// assert!(e.contains("x.toml") && e.contains("selfplay.simz"), "{e}");
    /// let e = TrainConfig::parse("[train]\nbatch_size = 0\n", "x.toml").unwrap_err().to_string();
    /// assert!(e.contains("train.batch_size"), "{e}");
    /// ```
    pub fn parse(text: &str, name: &str) -> Result<TrainConfig, ConfigError> {
        let key_err = |key: &str, message: String| ConfigError::Key {
            path: name.to_string(),
            key: key.to_string(),
            message,
        };
        let file: ConfigFile = toml::from_str(text).map_err(|e| match locate(text, &e) {
            (Some(key), message) => key_err(&key, message),
            (None, message) => ConfigError::Toml {
                path: name.to_string(),
                message,
            },
        })?;
        let rules = match &file.rules {
            None => Rules::default(),
            Some(toml::Value::String(s)) => {
                Rules::load(s).map_err(|e| key_err("rules", e.to_string()))?
            }
            Some(toml::Value::Table(t)) => {
                let text = toml::to_string(t).map_err(|e| key_err("rules", e.to_string()))?;
                Rules::from_toml(&text).map_err(|e| key_err("rules", e.to_string()))?
            }
            Some(other) => {
                return Err(key_err(
                    "rules",
                    format!("expected a preset name or a table, got {other}"),
                ));
            }
        };
        let backend = match &file.backend {
            None => Backend::Cpu,
            Some(s) => s.parse().map_err(|e| key_err("backend", format!("{e}")))?,
        };
        let model = match &file.model {
            None => ModelConfig::new(),
            Some(t) => {
                let text = toml::to_string(t).map_err(|e| key_err("model", e.to_string()))?;
                ModelConfig::from_toml(&text).map_err(|e| {
                    let key = match &e {
                        ModelConfigError::OutOfRange { key, .. } => Some(key.to_string()),
                        ModelConfigError::Toml { key, .. } => key.clone(),
                    };
                    let key = key.map_or("model".to_string(), |k| format!("model.{k}"));
                    key_err(&key, e.to_string())
                })?
            }
        };
        let config = TrainConfig {
            rules,
            backend,
            model,
            selfplay: file.selfplay,
            train: file.train,
            eval: file.eval,
            run: file.run,
        };
        config
            .validate()
            .map_err(|(key, message)| key_err(&key, message))?;
        Ok(config)
    }

    /// Checks every range; `(key, message)` for the first out of range.
    fn validate(&self) -> Result<(), (String, String)> {
        self.selfplay.validate()?;
        self.train.validate()?;
        self.eval.validate()?;
        range(
            "run.total_steps",
            self.run.total_steps,
            1,
            1_000_000_000_000,
        )?;
        range("run.hours", self.run.hours, 0.0, 1e6)
    }

    /// The resolved config as TOML that [`TrainConfig::parse`] reads back to
    /// the same value: every key.
    pub fn to_toml(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "# The resolved training config of this run (every key).\nbackend = \"{}\"\n",
            self.backend
        );
        let section = |name: &str, v: &dyn erased::Ser| -> String {
            format!("[{name}]\n{}\n", v.to_toml_string())
        };
        s += &section("selfplay", &self.selfplay);
        s += &section("train", &self.train);
        s += &section("eval", &self.eval);
        s += &section("run", &self.run);
        let _ = write!(s, "[model]\n{}\n", self.model.to_toml());
        let _ = write!(s, "[rules]\n{}", self.rules.to_toml());
        s
    }

    /// Worker threads after resolving 0 to the core count.
    pub fn workers(&self) -> usize {
        match self.selfplay.workers {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        }
    }
}

mod erased {
    /// A section that can be written as TOML.
    pub trait Ser {
        fn to_toml_string(&self) -> String;
    }
    impl<T: serde::Serialize> Ser for T {
        fn to_toml_string(&self) -> String {
            toml::to_string(self).unwrap_or_default()
        }
    }
}

/// `Ok` when `v` is in `lo..=hi`, else `(key, message)`: the one range
/// check of the config, whose message states the range it checked.
fn range<T: PartialOrd + std::fmt::Display>(
    key: &str,
    v: T,
    lo: T,
    hi: T,
) -> Result<(), (String, String)> {
    if v >= lo && v <= hi {
        Ok(())
    } else {
        Err((
            key.to_string(),
            format!("{v} is out of range ({lo} to {hi})"),
        ))
    }
}

impl SelfPlayConfig {
    fn validate(&self) -> Result<(), (String, String)> {
        let s = self;
        range("selfplay.workers", s.workers, 0, 1024)?;
        range("selfplay.games_in_flight", s.games_in_flight, 1, 4096)?;
        range("selfplay.sims", s.sims, 1, 100_000)?;
        range("selfplay.gumbel_considered", s.gumbel_considered, 2, 64)?;
        range("selfplay.temperature", s.temperature, 0.0, 10.0)?;
        range("selfplay.temperature_moves", s.temperature_moves, 0, 10_000)?;
        range("selfplay.final_temperature", s.final_temperature, 0.0, 10.0)?;
        range("selfplay.dirichlet_alpha", s.dirichlet_alpha, 0.001, 100.0)?;
        range("selfplay.dirichlet_epsilon", s.dirichlet_epsilon, 0.0, 1.0)?;
        range(
            "selfplay.full_search_fraction",
            s.full_search_fraction,
            0.01,
            1.0,
        )?;
        if let Some(f) = s.place_full_search_fraction {
            range("selfplay.place_full_search_fraction", f, 0.01, 1.0)?;
        }
        range("selfplay.fast_sims", s.fast_sims, 1, 100_000)?;
        range(
            "selfplay.opening_plies",
            s.opening_plies,
            0,
            crate::arena::MAX_OPENING,
        )?;
        if s.fast_sims > s.sims {
            return Err((
                "selfplay.fast_sims".into(),
                format!("{} is above selfplay.sims ({})", s.fast_sims, s.sims),
            ));
        }
        range("selfplay.start_fraction", s.start_fraction, 0.0, 1.0)?;
        if s.start_fraction > 0.0 && s.start_records.is_empty() {
            return Err((
                "selfplay.start_fraction".into(),
                format!("{} needs selfplay.start_records", s.start_fraction),
            ));
        }
        range("selfplay.leaves_per_batch", s.leaves_per_batch, 1, 64)?;
        let (lo, hi) = PuctConfig::C_INIT_RANGE;
        range("selfplay.c_puct", s.c_puct, lo, hi)?;
        let (lo, hi) = PuctConfig::FPU_REDUCTION_RANGE;
        range("selfplay.fpu_reduction", s.fpu_reduction, lo, hi)?;
        Ok(())
    }
}

impl TrainSection {
    fn validate(&self) -> Result<(), (String, String)> {
        let t = self;
        range("train.batch_size", t.batch_size, 1, 65_536)?;
        range("train.lr", t.lr, 1e-9, 10.0)?;
        range("train.warmup_steps", t.warmup_steps, 0, 1_000_000_000)?;
        range("train.lr_final_fraction", t.lr_final_fraction, 0.0, 1.0)?;
        range("train.lr_step_every", t.lr_step_every, 1, u64::MAX)?;
        range("train.lr_step_gamma", t.lr_step_gamma, 1e-6, 1.0)?;
        range("train.momentum", t.momentum, 0.0, 0.9999)?;
        range("train.weight_decay", t.weight_decay, 0.0, 1.0)?;
        range(
            "train.steps_per_checkpoint",
            t.steps_per_checkpoint,
            1,
            10_000_000,
        )?;
        range(
            "train.samples_per_position",
            t.samples_per_position,
            0.01,
            1000.0,
        )?;
        range("train.window_min", t.window_min, 1, 1_000_000_000)?;
        range(
            "train.window_max",
            t.window_max,
            t.window_min,
            1_000_000_000,
        )?;
        range("train.window_exponent", t.window_exponent, 0.01, 1.0)?;
        range("train.window_beta", t.window_beta, 0.0, 10.0)?;
        range("train.search_value_weight", t.search_value_weight, 0.0, 1.0)?;
        range("train.material_weight", t.material_weight, 0.0, 100.0)?;
        Ok(())
    }
}

impl EvalConfig {
    fn validate(&self) -> Result<(), (String, String)> {
        let e = self;
        range("eval.games", e.games, 2, 100_000)?;
        range("eval.sims", e.sims, 1, 100_000)?;
        range(
            "eval.opening_plies",
            e.opening_plies,
            0,
            crate::arena::MAX_OPENING,
        )?;
        range("eval.threads", e.threads, 0, crate::arena::MAX_THREADS)?;
        range(
            "eval.games_in_flight",
            e.games_in_flight,
            1,
            crate::arena::MAX_IN_FLIGHT,
        )?;
        range("eval.gating_threshold", e.gating_threshold, 0.0, 1.0)?;
        let registry = shax_search::Registry::classic();
        for b in &e.baselines {
            // Classic specs are checked now; others (net:...) when the match starts.
            if let Ok(spec) = b.parse::<shax_search::PlayerSpec>()
                && spec.kind != "net"
                && let Err(err) = registry.build(&spec)
            {
                return Err(("eval.baselines".into(), format!("'{b}': {err}")));
            } else if b.parse::<shax_search::PlayerSpec>().is_err() {
                return Err((
                    "eval.baselines".into(),
                    format!("'{b}' is not a player spec"),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolved_config_round_trips() {
        let mut c = TrainConfig::default();
        c.selfplay.sims = 17;
        c.selfplay.place_full_search_fraction = Some(1.0);
        c.train.optimizer = Optimizer::SgdMomentum;
        c.train.policy_actions = PolicyActions::Reachable;
        c.rules = Rules::load("nine-mens-morris").unwrap();
        let back = TrainConfig::parse(&c.to_toml(), "saved").unwrap();
        assert_eq!(back, c);
    }

    #[test]
    fn errors_name_file_and_key() {
        let cases = [
            ("[model]\nhidden = 0\n", "model.hidden"),
            ("[model]\nwidth = 3\n", "model"),
            ("rules = \"chess\"\n", "rules"),
            (
                "[eval]\nbaselines = [\"alphabeta:depth=99\"]\n",
                "eval.baselines",
            ),
            ("[selfplay]\nsims = \"many\"\n", "selfplay.sims"),
            ("[train]\noptimizer = \"lbfgs\"\n", "train.optimizer"),
            (
                "[train]\npolicy_actions = \"legal\"\n",
                "train.policy_actions",
            ),
            ("[run]\nseed = 1\nbogus = 2\n", "run.bogus"),
            (
                "[selfplay]\nfast_sims = 64\nsims = 8\n",
                "selfplay.fast_sims",
            ),
            ("[selfplay]\nc_puct = -1.0\n", "selfplay.c_puct"),
            (
                "[selfplay]\nplace_full_search_fraction = 1.5\n",
                "selfplay.place_full_search_fraction",
            ),
            (
                "[selfplay]\nfpu_reduction = 3.0\n",
                "selfplay.fpu_reduction",
            ),
            (
                "[selfplay]\nstart_fraction = 0.5\n",
                "selfplay.start_fraction",
            ),
            (
                "[selfplay]\nstart_records = \"g.jsonl\"\nstart_fraction = 2.0\n",
                "selfplay.start_fraction",
            ),
        ];
        for (text, key) in cases {
            let e = TrainConfig::parse(text, "bad.toml")
                .unwrap_err()
                .to_string();
            assert!(e.contains("bad.toml") && e.contains(key), "{text:?}: {e}");
        }
    }

    #[test]
    fn reachable_policy_actions_follow_the_rules() {
        let c = TrainConfig::parse("[train]\npolicy_actions = \"reachable\"\n", "t").unwrap();
        let actions = c.train.policy_actions;
        assert_eq!(actions, PolicyActions::Reachable);
        assert_eq!(actions.support(&Rules::load("shax").unwrap()).len(), 112);
        let flying = Rules::load("shax-flying").unwrap();
        assert_eq!(actions.support(&flying).len(), shax_core::POLICY_SIZE);
        let every = PolicyActions::All.support(&Rules::load("shax").unwrap());
        assert_eq!(every, (0..shax_core::POLICY_SIZE).collect::<Vec<_>>());
    }

    #[test]
    fn window_grows_sublinearly_and_caps() {
        let t = TrainSection {
            window_min: 1000,
            window_max: 5000,
            ..TrainSection::default()
        };
        assert_eq!(t.window(500), 500);
        assert_eq!(t.window(1000), 1000);
        let w = t.window(10_000);
        assert!(w > 1000 && w < 10_000, "{w}");
        assert_eq!(t.window(10_000_000), 5000);
    }

    #[test]
    fn lr_warms_up_then_decays() {
        let t = TrainSection {
            lr: 1.0,
            warmup_steps: 10,
            lr_final_fraction: 0.1,
            ..TrainSection::default()
        };
        assert!((t.lr_at(0, 100, 0.0) - 0.1).abs() < 1e-9);
        assert!((t.lr_at(10, 100, 0.0) - 1.0).abs() < 1e-9);
        assert!((t.lr_at(100, 100, 0.0) - 0.1).abs() < 1e-9);
        assert!(t.lr_at(50, 100, 0.0) < 1.0 && t.lr_at(50, 100, 0.0) > 0.1);
    }

    /// Regression (issue 11): the cosine followed `total_steps` alone, so a
    /// run stopped by `run.hours` first never decayed its learning rate.
    #[test]
    fn cosine_follows_steps_or_hours_whichever_is_further() {
        let t = TrainSection {
            lr: 1.0,
            warmup_steps: 10,
            lr_final_fraction: 0.1,
            ..TrainSection::default()
        };
        let by_steps = |step| t.lr_at(step, 1010, 0.0);
        // Half the time gone at a quarter of the steps: the rate of half the steps.
        assert!((t.lr_at(260, 1010, 0.5) - by_steps(510)).abs() < 1e-9);
        assert!((t.lr_at(260, 1010, 0.5) - 0.55).abs() < 1e-9);
        // All the time gone: the final rate, whatever the step.
        assert!((t.lr_at(20, 1010, 1.0) - 0.1).abs() < 1e-9);
        // Steps further than time: the steps decide.
        assert!((t.lr_at(760, 1010, 0.25) - by_steps(760)).abs() < 1e-9);
        // Warm-up counts steps whatever the time.
        assert!((t.lr_at(4, 1010, 0.9) - 0.5).abs() < 1e-9);
        // The step schedule counts steps.
        let s = TrainSection {
            lr_schedule: LrSchedule::Step,
            lr_step_every: 100,
            lr_step_gamma: 0.5,
            ..t.clone()
        };
        assert!((s.lr_at(60, 1010, 0.9) - 1.0).abs() < 1e-9);
    }
}
