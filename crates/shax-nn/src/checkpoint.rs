//! Checkpoints: the network record plus its metadata, beside each other.
//!
//! A checkpoint named `net.bpk` is two files:
//! - `net.bpk`: the weights, in Burn's burnpack format;
//! - `net.meta.toml`: the metadata, read first, `format_version` its first key:
//!
//! ```toml
//! format_version = 4
//! encoder_version = 1
//! step = 0
//! created_unix = 1764417600
//! created = "2025-11-29T12:00:00Z"
//! record_bytes = 123456
//! record_fnv1a64 = "89abcdef01234567"
//!
//! [model]
//! hidden = 128
//! # ... every key of ModelConfig
//!
//! [rules]
//! preset = "shax"
//! # ... every key of the rules file, as Rules::to_toml writes it
//! ```
//!
//! Format 1 (up to the three-way value head) had no `value_head` key: its
//! networks have the scalar head, and they load as such. Format 2 had no
//! `encoder` key in `[model]`: its networks use the top-level
//! `encoder_version` (always 1 then). Format 3 had no `material_head` key:
//! its networks have none. This build writes format 4; an older build refuses
//! it by its version rather than by the new key.
//!
//! Both files are written to temporary names and renamed into place, so a
//! reader never sees a half-written file; the metadata holds the record's size
//! and hash, so a record and metadata from two different saves (a reader
//! racing a writer) are refused rather than mixed.

use std::fmt::Write as _;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use burn::module::Module;
use burn::store::ModuleRecord;
use burn::tensor::{Bytes, Device};
use shax_core::Rules;

use crate::encoder::{ENCODER_VERSION, OLDEST_ENCODER_VERSION};
use crate::evaluator::NetWeights;
use crate::model::{ModelConfig, PolicyValueNet, ValueHead};

/// Version of the metadata file's format this build writes.
pub const FORMAT_VERSION: u32 = 4;

/// The oldest format version this build reads (format 1: scalar value head).
pub const OLDEST_FORMAT_VERSION: u32 = 1;

/// Why a checkpoint could not be written or read, naming the file and what differs.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// Reading or writing a file failed.
    #[error("checkpoint {path}: {message}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's message.
        message: String,
    },
    /// The metadata file is malformed or misses a key.
    #[error("checkpoint metadata {path}: {message}")]
    Metadata {
        /// The metadata file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The metadata's format version is not one this build reads.
    #[error(
        "checkpoint metadata {path}: format_version {found} is not supported (this build reads {} to {supported})",
        OLDEST_FORMAT_VERSION
    )]
    FormatVersion {
        /// The metadata file.
        path: PathBuf,
        /// The version found.
        found: i64,
        /// The version this build reads.
        supported: u32,
    },
    /// The network was trained on another encoding of positions.
    #[error(
        "checkpoint {path}: encoder_version {found}, but this build encodes positions as versions {OLDEST_ENCODER_VERSION} to {expected}"
    )]
    EncoderVersion {
        /// The metadata file.
        path: PathBuf,
        /// The checkpoint's encoder version.
        found: i64,
        /// This build's newest, [`ENCODER_VERSION`].
        expected: u32,
    },
    /// The network was trained under other rules than the caller's.
    #[error(
        "checkpoint {path} was trained for other rules ({checkpoint_name} vs {expected_name}): {differences}"
    )]
    RulesMismatch {
        /// The metadata file.
        path: PathBuf,
        /// The checkpoint's rules, by name.
        checkpoint_name: String,
        /// The expected rules, by name.
        expected_name: String,
        /// Each differing key: `key: checkpoint <value>, expected <value>`.
        differences: String,
    },
    /// The record does not fit the metadata, or Burn cannot read it.
    #[error("checkpoint record {path}: {message}")]
    Record {
        /// The record file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// What a checkpoint's metadata says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckpointMeta {
    /// The resolved network configuration.
    pub model: ModelConfig,
    /// The rules the network was trained for.
    pub rules: Rules,
    /// Training steps done when it was saved.
    pub step: u64,
    /// Creation time, seconds since the Unix epoch.
    pub created_unix: u64,
}

/// A loaded checkpoint: its metadata and its network.
#[derive(Debug)]
pub struct Checkpoint {
    /// The metadata.
    pub meta: CheckpointMeta,
    /// The network, on the device it was loaded to.
    pub net: PolicyValueNet,
}

/// The metadata file beside the record `path`: `net.bpk` -> `net.meta.toml`.
pub fn metadata_path(path: &Path) -> PathBuf {
    path.with_extension("meta.toml")
}

fn io_err(path: &Path, e: impl std::fmt::Display) -> CheckpointError {
    CheckpointError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// FNV-1a, 64 bits: enough to tell two saves' records apart.
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// `YYYY-MM-DDTHH:MM:SSZ` from Unix seconds (proleptic Gregorian, UTC).
/// (Also used for other files' timestamps, such as tier manifests.)
pub fn utc_string(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// Writes `bytes` to `path` through a hidden temporary file in the same
/// folder, synced, then renamed: a reader sees the old file or the whole new
/// one, never a part. The one atomic write of the project (checkpoints,
/// shards, manifests, run state, game records). A path that is a device or
/// a pipe (`/dev/null`) is written to as it is.
///
/// # Errors
///
/// The I/O error; the temporary file is removed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    // A device or a pipe (`--out /dev/null`) cannot be replaced: renaming
    // over it would put a plain file in its place for every other program.
    if fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        return fs::OpenOptions::new()
            .write(true)
            .open(path)?
            .write_all(bytes);
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.tmp{}", std::process::id()));
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Saves `net` (on any device, autodiff included) with its metadata as the
/// checkpoint `path` (the record; the metadata goes to [`metadata_path`]).
/// Missing parent folders are created.
///
/// # Errors
///
/// [`CheckpointError::Io`] when a file cannot be written,
/// [`CheckpointError::Record`] when Burn cannot serialise the network.
pub fn save_checkpoint(
    path: &Path,
    net: PolicyValueNet,
    meta: &CheckpointMeta,
) -> Result<(), CheckpointError> {
    let record = net
        .into_record()
        .into_bytes()
        .map_err(|e| CheckpointError::Record {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent).map_err(|e| io_err(parent, e))?;
    }
    let mut text = String::new();
    let _ = writeln!(text, "format_version = {FORMAT_VERSION}");
    let _ = writeln!(text, "encoder_version = {}", meta.model.encoder);
    let _ = writeln!(text, "step = {}", meta.step);
    let _ = writeln!(text, "created_unix = {}", meta.created_unix);
    let _ = writeln!(text, "created = \"{}\"", utc_string(meta.created_unix));
    let _ = writeln!(text, "record_bytes = {}", record.len());
    let _ = writeln!(text, "record_fnv1a64 = \"{:016x}\"", fnv1a64(&record));
    let _ = write!(text, "\n[model]\n{}", meta.model.to_toml());
    let _ = write!(text, "\n[rules]\n{}", meta.rules.to_toml());
    write_atomic(path, &record).map_err(|e| io_err(path, e))?;
    let meta = metadata_path(path);
    write_atomic(&meta, text.as_bytes()).map_err(|e| io_err(&meta, e))
}

/// Writes a freshly initialised network for `rules` as the checkpoint `path`
/// (step 0), so search and tools can be tried before any training.
///
/// # Errors
///
/// [`CheckpointError::Metadata`] when `config` is out of range; as
/// [`save_checkpoint`] otherwise.
pub fn init_checkpoint(
    rules: &Rules,
    config: &ModelConfig,
    path: &Path,
) -> Result<CheckpointMeta, CheckpointError> {
    config.validate().map_err(|e| CheckpointError::Metadata {
        path: metadata_path(path),
        message: e.to_string(),
    })?;
    let meta = CheckpointMeta {
        model: config.clone(),
        rules: *rules,
        step: 0,
        created_unix: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
    };
    let net = config.init(&crate::Backend::Cpu.device());
    save_checkpoint(path, net, &meta)?;
    Ok(meta)
}

/// Metadata plus what loading the record needs to check it.
struct ReadMeta {
    meta: CheckpointMeta,
    record_bytes: u64,
    record_hash: u64,
}

fn read_meta(path: &Path) -> Result<ReadMeta, CheckpointError> {
    let meta_path = metadata_path(path);
    let bad = |message: String| CheckpointError::Metadata {
        path: meta_path.clone(),
        message,
    };
    let text = fs::read_to_string(&meta_path).map_err(|e| io_err(&meta_path, e))?;
    let table: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| bad(e.message().trim().to_string()))?;
    let int = |key: &str| -> Result<i64, CheckpointError> {
        match table.get(key) {
            Some(toml::Value::Integer(i)) => Ok(*i),
            Some(_) => Err(bad(format!("{key} is not an integer"))),
            None => Err(bad(format!("missing key {key}"))),
        }
    };
    let format = int("format_version")?;
    if !(i64::from(OLDEST_FORMAT_VERSION)..=i64::from(FORMAT_VERSION)).contains(&format) {
        return Err(CheckpointError::FormatVersion {
            path: meta_path,
            found: format,
            supported: FORMAT_VERSION,
        });
    }
    let encoder = int("encoder_version")?;
    if !(i64::from(OLDEST_ENCODER_VERSION)..=i64::from(ENCODER_VERSION)).contains(&encoder) {
        return Err(CheckpointError::EncoderVersion {
            path: meta_path,
            found: encoder,
            expected: ENCODER_VERSION,
        });
    }
    let unsigned = |key: &str| -> Result<u64, CheckpointError> {
        u64::try_from(int(key)?).map_err(|_| bad(format!("{key} is negative")))
    };
    let step = unsigned("step")?;
    let created_unix = unsigned("created_unix")?;
    let record_bytes = unsigned("record_bytes")?;
    let record_hash = match table.get("record_fnv1a64") {
        Some(toml::Value::String(s)) => u64::from_str_radix(s, 16)
            .map_err(|_| bad(format!("record_fnv1a64 '{s}' is not a hex number")))?,
        _ => return Err(bad("missing key record_fnv1a64 (a hex string)".into())),
    };
    let section = |key: &str| -> Result<toml::Table, CheckpointError> {
        match table.get(key) {
            Some(toml::Value::Table(t)) => Ok(t.clone()),
            _ => Err(bad(format!("missing table [{key}]"))),
        }
    };
    let text =
        |key: &str, t: toml::Table| toml::to_string(&t).map_err(|e| bad(format!("[{key}]: {e}")));
    let mut model = section("model")?;
    model_in_todays_terms(&mut model, format, encoder).map_err(bad)?;
    let model =
        ModelConfig::from_toml(&text("model", model)?).map_err(|e| bad(format!("[model]: {e}")))?;
    let rules = Rules::from_toml(&text("rules", section("rules")?)?)
        .map_err(|e| bad(format!("[rules]: {e}")))?;
    Ok(ReadMeta {
        meta: CheckpointMeta {
            model,
            rules,
            step,
            created_unix,
        },
        record_bytes,
        record_hash,
    })
}

/// Fills in the `[model]` keys an older metadata format lacked: format 1 had
/// no `value_head` (its networks have the scalar head); up to format 2 the
/// encoder version was only at the top, since format 3 `[model]` repeats it
/// and the two must agree.
fn model_in_todays_terms(model: &mut toml::Table, format: i64, encoder: i64) -> Result<(), String> {
    if format == 1 {
        model
            .entry("value_head")
            .or_insert_with(|| ValueHead::Scalar.name().into());
    }
    let in_model = model
        .entry("encoder")
        .or_insert(toml::Value::Integer(encoder));
    if in_model.as_integer() != Some(encoder) {
        return Err(format!(
            "encoder_version = {encoder} but [model] encoder = {in_model}"
        ));
    }
    Ok(())
}

/// `key: checkpoint <a>, expected <b>` for each key whose line differs.
fn rules_differences(checkpoint: &Rules, expected: &Rules) -> String {
    let a = checkpoint.to_toml();
    let b = expected.to_toml();
    a.lines()
        .zip(b.lines())
        .filter(|(x, y)| x != y)
        .map(|(x, y)| {
            let (key, va) = x.split_once(" = ").unwrap_or((x, ""));
            let vb = y.split_once(" = ").map_or(y, |(_, v)| v);
            format!("{key}: checkpoint {va}, expected {vb}")
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Reads and checks a checkpoint's metadata only: format version, encoder
/// version, and the rules when `expected_rules` is given.
///
/// # Errors
///
/// [`CheckpointError::Io`] when the metadata file cannot be read;
/// [`CheckpointError::Metadata`] when it is malformed;
/// [`CheckpointError::FormatVersion`], [`CheckpointError::EncoderVersion`] or
/// [`CheckpointError::RulesMismatch`] naming what differs.
pub fn load_metadata(
    path: &Path,
    expected_rules: Option<&Rules>,
) -> Result<CheckpointMeta, CheckpointError> {
    let read = read_meta(path)?;
    check_rules(path, &read.meta, expected_rules)?;
    Ok(read.meta)
}

fn check_rules(
    path: &Path,
    meta: &CheckpointMeta,
    expected: Option<&Rules>,
) -> Result<(), CheckpointError> {
    match expected {
        Some(rules) if *rules != meta.rules => Err(CheckpointError::RulesMismatch {
            path: metadata_path(path),
            checkpoint_name: meta.rules.name(),
            expected_name: rules.name(),
            differences: rules_differences(&meta.rules, rules),
        }),
        _ => Ok(()),
    }
}

/// Loads the checkpoint `path` onto `device` (plain or autodiff): the metadata
/// first, checked as by [`load_metadata`], then the record, checked against
/// the metadata's size and hash and the configuration's shapes.
///
/// # Errors
///
/// Every error of [`load_metadata`]; [`CheckpointError::Io`] when the record
/// cannot be read; [`CheckpointError::Record`] when it does not fit the
/// metadata or the network.
pub fn load_checkpoint(
    path: &Path,
    expected_rules: Option<&Rules>,
    device: &Device,
) -> Result<Checkpoint, CheckpointError> {
    let read = read_meta(path)?;
    check_rules(path, &read.meta, expected_rules)?;
    let bad = |message: String| CheckpointError::Record {
        path: path.to_path_buf(),
        message,
    };
    let bytes = fs::read(path).map_err(|e| io_err(path, e))?;
    if bytes.len() as u64 != read.record_bytes || fnv1a64(&bytes) != read.record_hash {
        return Err(bad(format!(
            "the record ({} bytes) is not the one its metadata describes ({} bytes); \
             was it replaced or truncated?",
            bytes.len(),
            read.record_bytes
        )));
    }
    let record =
        ModuleRecord::from_bytes(Bytes::from_bytes_vec(bytes)).map_err(|e| bad(e.to_string()))?;
    let net = read
        .meta
        .model
        .init(device)
        .try_load_record(record)
        .map_err(|e| bad(e.to_string()))?;
    Ok(Checkpoint {
        meta: read.meta,
        net,
    })
}

/// Loads the checkpoint `path` as [`NetWeights`] to share among worker
/// threads (each builds its own [`crate::NetEvaluator`]), checked as by
/// [`load_checkpoint`].
///
/// # Errors
///
/// Every error of [`load_checkpoint`]; [`CheckpointError::Record`] when the
/// weights cannot be serialised again.
pub fn load_weights(
    path: &Path,
    expected_rules: Option<&Rules>,
) -> Result<(CheckpointMeta, NetWeights), CheckpointError> {
    let checkpoint = load_checkpoint(path, expected_rules, &crate::Backend::Cpu.device())?;
    let weights = NetWeights::from_net(&checkpoint.meta.model, checkpoint.net).map_err(|e| {
        CheckpointError::Record {
            path: path.to_path_buf(),
            message: e.to_string(),
        }
    })?;
    Ok((checkpoint.meta, weights))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_string_matches_known_dates() {
        assert_eq!(utc_string(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc_string(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc_string(1_764_417_600 + 3661), "2025-11-29T13:01:01Z");
    }

    #[test]
    fn write_atomic_replaces_files_and_writes_through_devices() {
        let dir = std::env::temp_dir().join(format!("shax-atomic-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let file = dir.join("a.txt");
        write_atomic(&file, b"one").unwrap();
        write_atomic(&file, b"two").unwrap();
        assert_eq!(fs::read(&file).unwrap(), b"two");
        assert_eq!(
            fs::read_dir(&dir).unwrap().count(),
            1,
            "no temporary file left"
        );
        fs::remove_dir_all(&dir).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            write_atomic(Path::new("/dev/null"), b"gone").unwrap();
            let meta = fs::metadata("/dev/null").unwrap();
            assert!(
                meta.file_type().is_char_device(),
                "/dev/null is still a device"
            );
        }
    }

    #[test]
    fn fnv_tells_bytes_apart() {
        assert_ne!(fnv1a64(b"ab"), fnv1a64(b"ba"));
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
    }
}
