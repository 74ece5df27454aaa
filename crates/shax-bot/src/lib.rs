//! AI opponents at named strengths, for games that embed them.
//!
//! - [`Bot`]: a player for a rule set, from a difficulty tier (`beginner`,
//!   `easy`, `medium`, `hard`, `master`), a tier manifest, or any player spec.
//! - [`TierManifest`]: the one reader and writer of `checkpoints/<rules>/tiers.toml`.
//! - [`registry`]: every player kind built from a spec string: the classic
//!   players, `net:<checkpoint>[,sims=N][,gumbel][,temp=T]` and `tier:<name>`.
//!
//! # Examples
//!
//! ```
//! use shax_bot::Bot;
//! use shax_core::{Game, Rules};
//!
//! // Any player spec; `Bot::from_tier(&rules, "medium")` reads the shipped tiers.
//! let rules = Rules::default();
//! let mut bot = Bot::from_spec(&rules, "alphabeta:depth=2").unwrap();
//! let mut game = Game::new(rules);
//! let action = bot.choose_action(game.position()).unwrap();
//! game.play(action).unwrap();
//! ```

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use shax_core::{Action, Game, KeyHistory, Position, Preset, Rules};
use shax_nn::{WeightsCache, register_net};
use shax_search::{Limits, Player, PlayerSpec, Registry, SpecError, history_of};

/// The tiers, weakest first.
pub const TIERS: [&str; 5] = ["beginner", "easy", "medium", "hard", "master"];

/// The version of the tier manifest format this code reads and writes.
pub const MANIFEST_VERSION: u32 = 1;

/// Why a bot or a manifest could not be had.
#[derive(Debug, thiserror::Error)]
pub enum BotError {
    /// The manifest file could not be read or written.
    #[error("tier manifest {path}: {message}")]
    Io {
        /// The manifest's path.
        path: PathBuf,
        /// The system's reason.
        message: String,
    },
    /// The manifest is malformed, of another version, or for other rules.
    #[error("tier manifest {path}: {message}")]
    Manifest {
        /// The manifest's path.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// No manifest exists for these rules in any place looked at.
    #[error(
        "no difficulty tiers for rules '{rules}' (rule sets with tiers: {shipped}; looked for {looked})"
    )]
    NoTiers {
        /// The rules' name.
        rules: String,
        /// The presets that have tiers where this one was looked for, or "none".
        shipped: String,
        /// The paths tried.
        looked: String,
    },
    /// The tier is not in the manifest.
    #[error("unknown tier '{tier}' (tiers: {known})")]
    UnknownTier {
        /// The tier asked for.
        tier: String,
        /// The manifest's tiers.
        known: String,
    },
    /// A player spec that does not build.
    #[error(transparent)]
    Spec(#[from] SpecError),
}

/// One tier of a manifest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TierEntry {
    /// `beginner`, `easy`, `medium`, `hard` or `master`.
    pub name: String,
    /// The player spec; a checkpoint path in it is relative to the manifest's folder.
    pub player: String,
    /// The checkpoint file the player uses, if any (relative to the manifest's folder).
    pub checkpoint: Option<String>,
    /// Fitted Elo (random = 0) and its 95% interval.
    pub elo: f64,
    /// Low end of the 95% interval.
    pub elo_low: f64,
    /// High end of the 95% interval.
    pub elo_high: f64,
    /// Score against the tier below (none for the lowest).
    pub score_vs_below: Option<f64>,
    /// Games played against the tier below.
    pub games_vs_below: u32,
}

/// A rule set's difficulty tiers: `checkpoints/<rules>/tiers.toml`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TierManifest {
    /// Always [`MANIFEST_VERSION`] for manifests this code writes.
    pub format_version: u32,
    /// The rules' name (a preset).
    pub rules: String,
    /// When the ladder was played (UTC, RFC 3339).
    pub created: String,
    /// Games per pair in the calibration ladder.
    pub ladder_games_per_pair: u32,
    /// Games in the whole calibration, ladder and neighbour matches together.
    pub total_games: u64,
    /// The tiers, weakest first.
    #[serde(rename = "tier", default)]
    pub tiers: Vec<TierEntry>,
}

impl TierManifest {
    /// Reads and checks a manifest: its version, that it holds tiers, that
    /// they are known tier names in order.
    ///
    /// # Errors
    ///
    /// [`BotError::Io`] or [`BotError::Manifest`] naming the file.
    pub fn load(path: &Path) -> Result<TierManifest, BotError> {
        let text = std::fs::read_to_string(path).map_err(|e| BotError::Io {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        let bad = |message: String| BotError::Manifest {
            path: path.to_path_buf(),
            message,
        };
        // The version first, so a newer format gets a clear message.
        #[derive(Deserialize)]
        struct Version {
            format_version: u32,
        }
        let v: Version = toml::from_str(&text).map_err(|e| bad(e.message().trim().to_string()))?;
        if v.format_version != MANIFEST_VERSION {
            return Err(bad(format!(
                "format_version {} is not supported (this build reads {MANIFEST_VERSION})",
                v.format_version
            )));
        }
        let m: TierManifest =
            toml::from_str(&text).map_err(|e| bad(e.message().trim().to_string()))?;
        if m.tiers.is_empty() {
            return Err(bad("no tiers".to_string()));
        }
        let mut last = None;
        for t in &m.tiers {
            let Some(i) = TIERS.iter().position(|n| *n == t.name) else {
                return Err(bad(format!(
                    "unknown tier name '{}' (tiers: {})",
                    t.name,
                    TIERS.join(", ")
                )));
            };
            if last.is_some_and(|l| l >= i) {
                return Err(bad(format!(
                    "tier '{}' is out of order (weakest first)",
                    t.name
                )));
            }
            last = Some(i);
        }
        Ok(m)
    }

    /// Writes the manifest (to a temporary name, then renamed).
    ///
    /// # Errors
    ///
    /// [`BotError::Io`] naming the file.
    pub fn save(&self, path: &Path) -> Result<(), BotError> {
        let io = |e: std::io::Error| BotError::Io {
            path: path.to_path_buf(),
            message: e.to_string(),
        };
        let text = toml::to_string_pretty(self).map_err(|e| BotError::Manifest {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let text = format!("# Difficulty tiers: written by `shax tiers`.\n{text}");
        shax_nn::write_atomic(path, text.as_bytes()).map_err(io)
    }

    /// The tier of this name.
    pub fn tier(&self, name: &str) -> Option<&TierEntry> {
        self.tiers.iter().find(|t| t.name == name)
    }

    /// The tier names, weakest first, comma-separated.
    pub fn names(&self) -> String {
        self.tiers
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Where the shipped tiers of `rules` are looked for, in order: under
/// `$SHAX_CHECKPOINTS`, under `./checkpoints`, and under the checkpoints
/// folder of the source tree this crate was built from.
pub fn manifest_candidates(rules: &Rules) -> Vec<PathBuf> {
    let name = rules.name();
    let mut roots = Vec::new();
    if let Some(dir) = std::env::var_os("SHAX_CHECKPOINTS") {
        roots.push(PathBuf::from(dir));
    }
    roots.push(PathBuf::from("checkpoints"));
    roots.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../checkpoints"));
    roots
        .into_iter()
        .map(|r| r.join(&name).join("tiers.toml"))
        .collect()
}

/// The manifest of `rules`' shipped tiers (see [`manifest_candidates`]).
///
/// # Errors
///
/// [`BotError::NoTiers`] when none exists; any error of [`TierManifest::load`].
pub fn find_manifest(rules: &Rules) -> Result<(PathBuf, TierManifest), BotError> {
    let candidates = manifest_candidates(rules);
    for path in &candidates {
        if path.exists() {
            let m = TierManifest::load(path)?;
            if m.rules != rules.name() {
                return Err(BotError::Manifest {
                    path: path.clone(),
                    message: format!("made for rules '{}', not '{}'", m.rules, rules.name()),
                });
            }
            return Ok((path.clone(), m));
        }
    }
    let shipped: Vec<String> = Preset::ALL
        .iter()
        .map(|&p| Rules::preset(p))
        .filter(|r| manifest_candidates(r).iter().any(|p| p.exists()))
        .map(|r| r.name())
        .collect();
    Err(BotError::NoTiers {
        rules: rules.name(),
        shipped: if shipped.is_empty() {
            "none".to_string()
        } else {
            shipped.join(", ")
        },
        looked: candidates
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", "),
    })
}

/// The player spec of a tier, its checkpoint path made relative to the
/// working directory (from the manifest's folder).
pub fn resolve_tier_spec(manifest_path: &Path, tier: &TierEntry) -> Result<String, BotError> {
    let mut spec: PlayerSpec = tier.player.parse()?;
    if spec.kind == "net"
        && let Some(first) = spec.args.first_mut()
    {
        let p = Path::new(first.as_str());
        if p.is_relative() {
            let dir = manifest_path.parent().unwrap_or(Path::new("."));
            *first = dir.join(p).display().to_string();
        }
    }
    Ok(spec.to_string())
}

/// Every player kind, for games under `rules`: the classic players,
/// `net:<checkpoint>[,sims=N][,gumbel][,temp=T][,batch=B]` (a network
/// checkpoint trained for `rules`, weights loaded once per path) and
/// `tier:<name>` (a tier of `rules`' shipped manifest).
pub fn registry(rules: Rules) -> Registry {
    let cache = WeightsCache::default();
    let mut r = Registry::classic();
    register_net(&mut r, rules, cache.clone());
    r.register(
        "tier",
        "tier:<beginner|easy|medium|hard|master> - a calibrated difficulty tier of these rules",
        Arc::new(move |spec| {
            let err = |why: String| SpecError::Build {
                kind: "tier".to_string(),
                why,
            };
            let [name] = spec.args.as_slice() else {
                return Err(SpecError::Arguments {
                    kind: "tier".to_string(),
                    why: format!("needs one tier name ({})", TIERS.join(", ")),
                });
            };
            if let Some((k, _)) = spec.params.first() {
                return Err(SpecError::UnknownParam {
                    kind: "tier".to_string(),
                    param: k.clone(),
                    known: "(none)".to_string(),
                });
            }
            let (path, manifest) = find_manifest(&rules).map_err(|e| err(e.to_string()))?;
            let tier = manifest.tier(name).ok_or_else(|| {
                err(BotError::UnknownTier {
                    tier: name.clone(),
                    known: manifest.names(),
                }
                .to_string())
            })?;
            let inner: PlayerSpec = resolve_tier_spec(&path, tier)
                .map_err(|e| err(e.to_string()))?
                .parse()?;
            if inner.kind == "tier" {
                return Err(err("a tier may not name another tier".to_string()));
            }
            let mut plain = Registry::classic();
            register_net(&mut plain, rules, cache.clone());
            plain.build(&inner)
        }),
    );
    r
}

/// An AI opponent for one rule set.
pub struct Bot {
    rules: Rules,
    player: Box<dyn Player>,
    moves: u64,
    seed: u64,
}

impl std::fmt::Debug for Bot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bot")
            .field("rules", &self.rules.name())
            .field("player", &self.player.spec())
            .finish()
    }
}

impl Bot {
    /// The bot of a difficulty tier from the shipped manifest of `rules`
    /// (`checkpoints/<rules>/tiers.toml`; see [`manifest_candidates`]).
    ///
    /// # Examples
    ///
    /// The README's example, with the tiers shipped in `checkpoints/shax/`:
    ///
    /// ```
    /// use shax_bot::Bot;
    /// use shax_core::{Game, Rules};
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let rules = Rules::default();
    /// let mut bot = Bot::from_tier(&rules, "medium")?;
    /// let mut game = Game::new(rules);
    /// let action = bot.choose_in_game(&game).expect("the game is not over");
    /// game.play(action)?;
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// [`BotError::NoTiers`] for rules without shipped tiers,
    /// [`BotError::UnknownTier`], or a checkpoint that does not load.
    pub fn from_tier(rules: &Rules, tier: &str) -> Result<Bot, BotError> {
        let (path, _) = find_manifest(rules)?;
        Bot::from_manifest(rules, &path, tier)
    }

    /// The bot of a tier of the manifest at `path`.
    ///
    /// # Errors
    ///
    /// Any error of [`TierManifest::load`], [`BotError::UnknownTier`], or a
    /// player that does not build.
    pub fn from_manifest(rules: &Rules, path: &Path, tier: &str) -> Result<Bot, BotError> {
        let manifest = TierManifest::load(path)?;
        let entry = manifest.tier(tier).ok_or_else(|| BotError::UnknownTier {
            tier: tier.to_string(),
            known: manifest.names(),
        })?;
        Bot::from_spec(rules, &resolve_tier_spec(path, entry)?)
    }

    /// The bot of any player spec (`alphabeta:depth=4`, `net:<file>,sims=64`, `tier:easy`).
    ///
    /// # Errors
    ///
    /// [`BotError::Spec`] naming what was wrong with the spec.
    pub fn from_spec(rules: &Rules, spec: &str) -> Result<Bot, BotError> {
        let player = registry(*rules).build_str(spec)?;
        Ok(Bot {
            rules: *rules,
            player,
            moves: 0,
            seed: 0x5348_4158,
        })
    }

    /// Sets the seed its decisions derive from (the same seed and position give the same action).
    #[must_use]
    pub fn with_seed(mut self, seed: u64) -> Bot {
        self.seed = seed;
        self
    }

    /// The player spec behind the bot.
    pub fn spec(&self) -> String {
        self.player.spec()
    }

    /// Chooses an action for `pos` (without history: repetitions before it are
    /// unknown; see [`Bot::choose_in_game`]). `None` when the game is over.
    pub fn choose_action(&mut self, pos: &Position) -> Option<Action> {
        self.moves += 1;
        let seed = shax_search::mix_seed(self.seed, self.moves);
        self.player
            .choose(pos, &KeyHistory::new(pos), &Limits::NONE, seed)
    }

    /// Chooses an action for the current position of `game`, its repetition
    /// history included. `None` when the game is over.
    pub fn choose_in_game(&mut self, game: &Game) -> Option<Action> {
        if game.outcome().is_some() {
            return None;
        }
        self.moves += 1;
        let seed = shax_search::mix_seed(self.seed, self.moves);
        self.player
            .choose(game.position(), &history_of(game), &Limits::NONE, seed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(tiers: &[(&str, &str)]) -> String {
        let mut s = "format_version = 1\nrules = \"shax\"\ncreated = \"2026-11-29T00:00:00Z\"\n\
                     ladder_games_per_pair = 10\ntotal_games = 100\n"
            .to_string();
        for (name, player) in tiers {
            s += &format!(
                "\n[[tier]]\nname = \"{name}\"\nplayer = \"{player}\"\nelo = 1.0\nelo_low = 0.0\n\
                 elo_high = 2.0\ngames_vs_below = 0\n"
            );
        }
        s
    }

    fn write(name: &str, text: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("shax-bot-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("tiers.toml");
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn manifest_round_trips_and_bots_play() {
        let p = write(
            "ok",
            &manifest(&[("beginner", "greedy"), ("master", "alphabeta:depth=2")]),
        );
        let m = TierManifest::load(&p).unwrap();
        assert_eq!(m.names(), "beginner, master");
        m.save(&p).unwrap();
        assert_eq!(TierManifest::load(&p).unwrap(), m);
        let rules = Rules::default();
        let mut bot = Bot::from_manifest(&rules, &p, "master").unwrap();
        assert_eq!(bot.spec(), "alphabeta:depth=2");
        let mut game = Game::new(rules);
        for _ in 0..30 {
            let Some(a) = bot.choose_in_game(&game) else {
                break;
            };
            game.play(a).unwrap();
        }
        assert!(matches!(
            Bot::from_manifest(&rules, &p, "easy"),
            Err(BotError::UnknownTier { .. })
        ));
    }

    #[test]
    fn bad_manifests_are_refused_naming_the_problem() {
        let cases = [
            (
                manifest(&[("beginner", "greedy")])
                    .replace("format_version = 1", "format_version = 9"),
                "format_version 9",
            ),
            (manifest(&[("novice", "greedy")]), "novice"),
            (
                manifest(&[("hard", "greedy"), ("easy", "random")]),
                "out of order",
            ),
            (manifest(&[]), "no tiers"),
            (
                manifest(&[("easy", "greedy")]).replace("elo = 1.0", "elo = 1.0\nmood = 3"),
                "mood",
            ),
        ];
        for (i, (text, needle)) in cases.iter().enumerate() {
            let p = write(&format!("bad{i}"), text);
            let e = TierManifest::load(&p).unwrap_err().to_string();
            assert!(e.contains(needle) && e.contains("tiers.toml"), "{e}");
        }
    }

    #[test]
    fn tier_specs_resolve_checkpoints_beside_the_manifest() {
        let entry = TierEntry {
            name: "easy".to_string(),
            player: "net:n.bpk,sims=8".to_string(),
            checkpoint: Some("n.bpk".to_string()),
            elo: 0.0,
            elo_low: 0.0,
            elo_high: 0.0,
            score_vs_below: None,
            games_vs_below: 0,
        };
        let spec = resolve_tier_spec(Path::new("checkpoints/shax/tiers.toml"), &entry).unwrap();
        assert_eq!(spec, "net:checkpoints/shax/n.bpk,sims=8");
    }
}
