//! Player specs (`alphabeta:depth=4`, `mcts:sims=1000,seed=7`,
//! `net:<checkpoint>,sims=N`) and the registry that builds players from them.
//!
//! A spec is `kind` or `kind:item,item,...`; an item is `key=value` (a
//! parameter) or a bare word (a positional argument, such as a checkpoint
//! path). Parsing is generic; each kind's builder checks its own parameters.
//! Kinds from other crates join through [`Registry::register`].

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use crate::player::Player;

/// A parsed player spec: a kind, positional arguments and parameters.
///
/// # Examples
///
/// ```
/// use shax_search::PlayerSpec;
///
/// let s: PlayerSpec = "mcts:sims=1000,seed=7".parse().unwrap();
/// assert_eq!(s.kind, "mcts");
/// assert_eq!(s.param("sims"), Some("1000"));
/// assert_eq!(s.to_string(), "mcts:sims=1000,seed=7");
/// let n: PlayerSpec = "net:runs/a.ckpt,sims=64".parse().unwrap();
/// assert_eq!(n.args, vec!["runs/a.ckpt".to_string()]);
/// assert!("".parse::<PlayerSpec>().is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerSpec {
    /// The player kind: `random`, `greedy`, `alphabeta`, `mcts`, ...
    pub kind: String,
    /// Bare items, in order.
    pub args: Vec<String>,
    /// `key=value` items, in order, keys unique.
    pub params: Vec<(String, String)>,
}

/// Why a player spec was rejected; every variant names what was wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    /// Nothing to parse.
    #[error("empty player spec")]
    Empty,
    /// The spec does not have the `kind[:key=value,...]` shape.
    #[error("malformed player spec '{spec}': {why}")]
    Malformed {
        /// The spec as given.
        spec: String,
        /// What was wrong.
        why: String,
    },
    /// No builder knows this kind.
    #[error("unknown player '{kind}' (known: {known})")]
    UnknownPlayer {
        /// The kind asked for.
        kind: String,
        /// The kinds the registry knows, comma-separated.
        known: String,
    },
    /// The kind has no such parameter.
    #[error("unknown parameter '{param}' for player '{kind}' (known: {known})")]
    UnknownParam {
        /// The player kind.
        kind: String,
        /// The parameter given.
        param: String,
        /// The parameters the kind knows.
        known: String,
    },
    /// A parameter's value is not of its type.
    #[error("bad value '{value}' for parameter '{param}' of player '{kind}': {why}")]
    BadValue {
        /// The player kind.
        kind: String,
        /// The parameter.
        param: String,
        /// The value given.
        value: String,
        /// What was expected.
        why: String,
    },
    /// A parameter's value is outside its range.
    #[error("parameter '{param}' of player '{kind}' is {value}, out of range {min}..={max}")]
    OutOfRange {
        /// The player kind.
        kind: String,
        /// The parameter.
        param: String,
        /// The value given.
        value: String,
        /// Smallest allowed value.
        min: String,
        /// Largest allowed value.
        max: String,
    },
    /// Positional arguments the kind does not take, or lacks.
    #[error("player '{kind}': {why}")]
    Arguments {
        /// The player kind.
        kind: String,
        /// What was wrong.
        why: String,
    },
    /// A builder failed for another reason (a checkpoint that does not load).
    #[error("player '{kind}': {why}")]
    Build {
        /// The player kind.
        kind: String,
        /// What failed.
        why: String,
    },
}

impl FromStr for PlayerSpec {
    type Err = SpecError;

    fn from_str(s: &str) -> Result<PlayerSpec, SpecError> {
        let s = s.trim();
        if s.is_empty() {
            return Err(SpecError::Empty);
        }
        let bad = |why: &str| SpecError::Malformed {
            spec: s.to_string(),
            why: why.to_string(),
        };
        let (kind, rest) = match s.split_once(':') {
            Some((k, r)) => (k.trim(), Some(r)),
            None => (s, None),
        };
        if kind.is_empty() {
            return Err(bad("no player kind before ':'"));
        }
        if !kind
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(bad("a player kind is letters, digits, '-' and '_'"));
        }
        let mut spec = PlayerSpec {
            kind: kind.to_ascii_lowercase(),
            args: Vec::new(),
            params: Vec::new(),
        };
        if let Some(rest) = rest {
            if rest.trim().is_empty() {
                return Err(bad("nothing after ':'"));
            }
            for item in rest.split(',') {
                let item = item.trim();
                if item.is_empty() {
                    return Err(bad("an empty item between commas"));
                }
                match item.split_once('=') {
                    Some((k, v)) => {
                        let (k, v) = (k.trim(), v.trim());
                        if k.is_empty() || v.is_empty() {
                            return Err(bad(&format!("'{item}' needs a key and a value")));
                        }
                        if spec.param(k).is_some() {
                            return Err(bad(&format!("parameter '{k}' given twice")));
                        }
                        spec.params.push((k.to_string(), v.to_string()));
                    }
                    None => spec.args.push(item.to_string()),
                }
            }
        }
        Ok(spec)
    }
}

impl fmt::Display for PlayerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.kind)?;
        let mut sep = ':';
        for a in &self.args {
            write!(f, "{sep}{a}")?;
            sep = ',';
        }
        for (k, v) in &self.params {
            write!(f, "{sep}{k}={v}")?;
            sep = ',';
        }
        Ok(())
    }
}

impl PlayerSpec {
    /// A spec of `kind` with no arguments or parameters.
    pub fn new(kind: &str) -> PlayerSpec {
        PlayerSpec {
            kind: kind.to_string(),
            args: Vec::new(),
            params: Vec::new(),
        }
    }

    /// The value of parameter `key`, if given.
    pub fn param(&self, key: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Checks that every parameter is one of `known`.
    ///
    /// # Errors
    ///
    /// [`SpecError::UnknownParam`] naming the first unknown one.
    pub fn check_params(&self, known: &[&str]) -> Result<(), SpecError> {
        for (k, _) in &self.params {
            if !known.contains(&k.as_str()) {
                return Err(SpecError::UnknownParam {
                    kind: self.kind.clone(),
                    param: k.clone(),
                    known: known.join(", "),
                });
            }
        }
        Ok(())
    }

    /// Checks that there are no positional arguments.
    ///
    /// # Errors
    ///
    /// [`SpecError::Arguments`] naming the first one.
    pub fn check_no_args(&self) -> Result<(), SpecError> {
        match self.args.first() {
            None => Ok(()),
            Some(a) => Err(SpecError::Arguments {
                kind: self.kind.clone(),
                why: format!("unexpected argument '{a}' (parameters are key=value)"),
            }),
        }
    }

    /// The value of parameter `param`, if given, parsed as its type and
    /// checked against its range.
    ///
    /// # Errors
    ///
    /// [`SpecError::BadValue`] when it does not parse as `T`,
    /// [`SpecError::OutOfRange`] when it is outside the range.
    ///
    /// # Examples
    ///
    /// ```
    /// use shax_search::{Param, PlayerSpec};
    ///
    /// const SIMS: Param<u32> = Param::new("sims", 1, 1000);
    /// let s: PlayerSpec = "mcts:sims=50".parse().unwrap();
    /// assert_eq!(s.get(SIMS).unwrap(), Some(50));
    /// assert!("mcts:sims=0".parse::<PlayerSpec>().unwrap().get(SIMS).is_err());
    /// assert!("mcts:sims=x".parse::<PlayerSpec>().unwrap().get(SIMS).is_err());
    /// assert_eq!(PlayerSpec::new("mcts").get(SIMS).unwrap(), None);
    /// ```
    pub fn get<T: ParamValue>(&self, param: Param<T>) -> Result<Option<T>, SpecError> {
        let Some(v) = self.param(param.key) else {
            return Ok(None);
        };
        let x: T = v.parse().map_err(|_| SpecError::BadValue {
            kind: self.kind.clone(),
            param: param.key.to_string(),
            value: v.to_string(),
            why: format!("expected {}", T::EXPECTED),
        })?;
        if !param.contains(x) {
            return Err(SpecError::OutOfRange {
                kind: self.kind.clone(),
                param: param.key.to_string(),
                value: v.to_string(),
                min: param.min.to_string(),
                max: param.max.to_string(),
            });
        }
        Ok(Some(x))
    }

    /// The value of parameter `param`, or `default` when it is not given.
    ///
    /// # Errors
    ///
    /// As [`PlayerSpec::get`].
    pub fn get_or<T: ParamValue>(&self, param: Param<T>, default: T) -> Result<T, SpecError> {
        Ok(self.get(param)?.unwrap_or(default))
    }
}

/// The value types of player parameters.
pub trait ParamValue: FromStr + PartialOrd + fmt::Display + Copy {
    /// What a value of this type looks like, for error messages.
    const EXPECTED: &'static str;
}

macro_rules! param_value {
    ($what:literal: $($t:ty),*) => {$(
        impl ParamValue for $t {
            const EXPECTED: &'static str = $what;
        }
    )*};
}
param_value!("a non-negative integer": u32, u64, usize);
param_value!("a number": f32, f64);

/// A numeric parameter of a player kind: its key and its range, one constant
/// that both the check ([`PlayerSpec::get`]) and the help text read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Param<T> {
    /// The key, as in `key=value`.
    pub key: &'static str,
    /// Smallest allowed value.
    pub min: T,
    /// Largest allowed value.
    pub max: T,
}

impl<T: ParamValue> Param<T> {
    /// A parameter `key` taking values in `min..=max`.
    pub const fn new(key: &'static str, min: T, max: T) -> Param<T> {
        Param { key, min, max }
    }

    /// Whether `x` is in range.
    pub fn contains(&self, x: T) -> bool {
        x >= self.min && x <= self.max
    }

    /// `[key=min..max]`, for help lines.
    pub fn help(&self) -> String {
        format!("[{}={}..{}]", self.key, self.min, self.max)
    }
}

/// The `seed` parameter every classic player takes.
pub const SEED: Param<u64> = Param::new("seed", 0, u64::MAX);

/// Builds a player from a spec of the builder's kind.
pub type Builder = Arc<dyn Fn(&PlayerSpec) -> Result<Box<dyn Player>, SpecError> + Send + Sync>;

/// The player kinds that can be built, by name: [`Registry::classic`] knows
/// this crate's players; other crates add theirs with [`Registry::register`]
/// (`net`, `tier`).
///
/// # Examples
///
/// ```
/// use shax_search::Registry;
///
/// let reg = Registry::classic();
/// let p = reg.build_str("alphabeta:depth=2").unwrap();
/// assert_eq!(p.spec(), "alphabeta:depth=2");
/// let e = reg.build_str("alphabeta:depht=2").unwrap_err();
/// assert!(e.to_string().contains("depht"));
/// assert!(reg.build_str("stockfish").unwrap_err().to_string().contains("stockfish"));
/// ```
#[derive(Clone)]
pub struct Registry {
    entries: Vec<(String, String, Builder)>,
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.entries.iter().map(|(k, _, _)| k))
            .finish()
    }
}

impl Registry {
    /// A registry with no kinds.
    pub fn empty() -> Registry {
        Registry {
            entries: Vec::new(),
        }
    }

    /// The classic players: `random`, `greedy`, `alphabeta`, `mcts`.
    pub fn classic() -> Registry {
        let mut r = Registry::empty();
        r.register(
            "random",
            &format!("uniform over legal actions {}", SEED.help()),
            Arc::new(|s| {
                Ok(Box::new(crate::random::RandomPlayer::from_spec(s)?) as Box<dyn Player>)
            }),
        );
        r.register(
            "greedy",
            &format!(
                "one-turn lookahead on the static evaluation {}",
                SEED.help()
            ),
            Arc::new(|s| {
                Ok(Box::new(crate::greedy::GreedyPlayer::from_spec(s)?) as Box<dyn Player>)
            }),
        );
        r.register(
            "alphabeta",
            &crate::alphabeta::AlphaBeta::help(),
            Arc::new(|s| {
                Ok(Box::new(crate::alphabeta::AlphaBeta::from_spec(s)?) as Box<dyn Player>)
            }),
        );
        r.register(
            "mcts",
            &crate::uct::Uct::help(),
            Arc::new(|s| Ok(Box::new(crate::uct::Uct::from_spec(s)?) as Box<dyn Player>)),
        );
        r
    }

    /// Adds (or replaces) the builder of `kind`.
    pub fn register(&mut self, kind: &str, help: &str, builder: Builder) {
        self.entries.retain(|(k, _, _)| k != kind);
        self.entries
            .push((kind.to_string(), help.to_string(), builder));
    }

    /// The kinds known, with a line of help each.
    pub fn kinds(&self) -> impl Iterator<Item = (&str, &str)> {
        self.entries
            .iter()
            .map(|(k, h, _)| (k.as_str(), h.as_str()))
    }

    /// Builds the player a spec names.
    ///
    /// # Errors
    ///
    /// [`SpecError::UnknownPlayer`] for a kind nobody registered; the
    /// builder's errors for its parameters.
    pub fn build(&self, spec: &PlayerSpec) -> Result<Box<dyn Player>, SpecError> {
        match self.entries.iter().find(|(k, _, _)| *k == spec.kind) {
            Some((_, _, b)) => b(spec),
            None => Err(SpecError::UnknownPlayer {
                kind: spec.kind.clone(),
                known: self
                    .entries
                    .iter()
                    .map(|(k, _, _)| k.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            }),
        }
    }

    /// Parses and builds a spec.
    ///
    /// # Errors
    ///
    /// Parse errors, then those of [`Registry::build`].
    pub fn build_str(&self, spec: &str) -> Result<Box<dyn Player>, SpecError> {
        self.build(&spec.parse()?)
    }
}

impl Default for Registry {
    fn default() -> Registry {
        Registry::classic()
    }
}

/// Builds one of the classic players from its spec string.
///
/// # Errors
///
/// As [`Registry::build_str`].
pub fn build_player(spec: &str) -> Result<Box<dyn Player>, SpecError> {
    Registry::classic().build_str(spec)
}
