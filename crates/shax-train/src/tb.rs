//! TensorBoard: event files written through `tensorboard-rs` (only
//! `add_scalar` and `add_histogram_raw`: its `add_histogram`, `add_text` and
//! `add_hparams` panic), histograms binned here, and a small reader of event
//! files (TFRecord framing with CRC-32C checks + the few protobuf fields used)
//! that resume uses to tell which steps are already logged.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tensorboard_rs::summary_writer::SummaryWriter;

/// The material head's loss (unweighted), written at every checkpoint by runs
/// whose network has one.
pub const MATERIAL_LOSS: &str = "loss/material";

/// The histogram of the value head's predictions, written at every checkpoint.
pub const VALUE_HISTOGRAM: &str = "train/value_predictions";

/// Every tag a run writes at each checkpoint (the scalars, then the
/// histogram); evaluations add `eval/elo` and `eval/score_vs_<opponent>`, a
/// network with the material head [`MATERIAL_LOSS`].
pub const TRAINING_TAGS: [&str; 16] = [
    "loss/policy",
    "loss/value",
    "loss/total",
    "train/lr",
    "train/samples_per_sec",
    "selfplay/games_per_sec",
    "selfplay/positions_per_sec",
    "selfplay/sims_per_sec",
    "selfplay/game_length",
    "selfplay/outcome_white",
    "selfplay/outcome_black",
    "selfplay/outcome_draw",
    "buffer/positions",
    "run/hours",
    "run/cpu_hours",
    VALUE_HISTOGRAM,
];

/// A TensorBoard writer for one run folder.
pub struct TbWriter {
    inner: SummaryWriter,
}

impl std::fmt::Debug for TbWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TbWriter")
    }
}

/// `loss/policy` etc. as a tag: anything but ASCII letters, digits, `_`, `-`, `.` and `/` becomes `_`.
pub fn sanitize_tag(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "_-./".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

impl TbWriter {
    /// Opens a new event file in `dir` (created if missing).
    ///
    /// # Errors
    ///
    /// The folder cannot be created or written.
    pub fn open(dir: &Path) -> std::io::Result<TbWriter> {
        fs::create_dir_all(dir)?;
        // tensorboard-rs names files by the second and the process id and
        // truncates an existing one: wait for a fresh second if this process
        // already opened one in this second.
        let pid = std::process::id();
        loop {
            let now = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            let prefix = format!("events.out.tfevents.{now:010}.");
            let suffix = format!(".{pid}.0");
            let clash = fs::read_dir(dir)?.filter_map(Result::ok).any(|e| {
                let n = e.file_name().to_string_lossy().into_owned();
                n.starts_with(&prefix) && n.ends_with(&suffix)
            });
            if !clash {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        // Probe writability so the writer thread (which panics on failure) does not.
        let probe = dir.join(format!(".probe{pid}"));
        fs::write(&probe, b"")?;
        let _ = fs::remove_file(probe);
        Ok(TbWriter {
            inner: SummaryWriter::new(dir),
        })
    }

    /// A scalar.
    pub fn scalar(&mut self, tag: &str, value: f32, step: u64) {
        self.inner
            .add_scalar(&sanitize_tag(tag), value, step as usize);
    }

    /// A histogram of `values` binned into `bins` equal bins over `[lo, hi]`
    /// (values outside fall into the end bins). Nothing for no values.
    pub fn histogram(
        &mut self,
        tag: &str,
        values: &[f32],
        lo: f64,
        hi: f64,
        bins: usize,
        step: u64,
    ) {
        if values.is_empty() || bins == 0 || hi <= lo {
            return;
        }
        let h = bin(values, lo, hi, bins);
        self.inner.add_histogram_raw(
            &sanitize_tag(tag),
            h.min,
            h.max,
            values.len() as f64,
            h.sum,
            h.sum_squares,
            &h.limits,
            &h.counts,
            step as usize,
        );
    }

    /// Asks the writer thread to flush (dropping the writer waits for it).
    pub fn flush(&mut self) {
        self.inner.flush();
    }
}

/// A binned histogram.
#[derive(Clone, Debug, PartialEq)]
pub struct Binned {
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// Sum.
    pub sum: f64,
    /// Sum of squares.
    pub sum_squares: f64,
    /// Upper edge of each bin.
    pub limits: Vec<f64>,
    /// Count of each bin.
    pub counts: Vec<f64>,
}

/// Bins `values` into `bins` equal bins over `[lo, hi]`.
pub fn bin(values: &[f32], lo: f64, hi: f64, bins: usize) -> Binned {
    let width = (hi - lo) / bins as f64;
    let mut counts = vec![0.0; bins];
    let (mut min, mut max, mut sum, mut sq) = (f64::INFINITY, f64::NEG_INFINITY, 0.0, 0.0);
    for &v in values {
        let v = f64::from(v);
        min = min.min(v);
        max = max.max(v);
        sum += v;
        sq += v * v;
        let k = (((v - lo) / width).floor().max(0.0) as usize).min(bins - 1);
        counts[k] += 1.0;
    }
    Binned {
        min,
        max,
        sum,
        sum_squares: sq,
        limits: (1..=bins).map(|i| lo + width * i as f64).collect(),
        counts,
    }
}

/// One value read back from an event file.
#[derive(Clone, Debug, PartialEq)]
pub struct TbValue {
    /// The tag.
    pub tag: String,
    /// The step.
    pub step: i64,
    /// The scalar, or the histogram's count for a histogram.
    pub value: f64,
    /// Whether it is a histogram.
    pub histogram: bool,
}

/// The event files of `dir`, oldest first.
pub fn event_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with("events.out.tfevents."))
                })
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn crc32c(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0x82F6_3B78
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn masked_crc(data: &[u8]) -> u32 {
    let c = crc32c(data);
    (c.rotate_right(15)).wrapping_add(0xa282_ead8)
}

/// One protobuf field: number, wire type, bytes (length-delimited and fixed), varint value.
type Field<'a> = (u64, u8, &'a [u8], u64);

/// Protobuf wire reading.
fn fields(mut b: &[u8]) -> Result<Vec<Field<'_>>, String> {
    fn varint(b: &mut &[u8]) -> Result<u64, String> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let (&byte, rest) = b.split_first().ok_or("varint ends early")?;
            *b = rest;
            v |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err("varint too long".into())
    }
    fn take<'a>(b: &mut &'a [u8], n: usize) -> Result<&'a [u8], String> {
        if b.len() < n {
            return Err("field ends early".into());
        }
        let (x, rest) = b.split_at(n);
        *b = rest;
        Ok(x)
    }
    let mut out = Vec::new();
    while !b.is_empty() {
        let key = varint(&mut b)?;
        let (field, wire) = (key >> 3, (key & 7) as u8);
        match wire {
            0 => {
                let v = varint(&mut b)?;
                out.push((field, wire, &[][..], v));
            }
            1 => out.push((field, wire, take(&mut b, 8)?, 0)),
            5 => out.push((field, wire, take(&mut b, 4)?, 0)),
            2 => {
                let n = varint(&mut b)? as usize;
                out.push((field, wire, take(&mut b, n)?, 0));
            }
            w => return Err(format!("unsupported wire type {w}")),
        }
    }
    Ok(out)
}

/// What one event file holds.
#[derive(Clone, Debug, Default)]
pub struct EventFile {
    /// The values in file order.
    pub values: Vec<TbValue>,
    /// Records read (the file-version record included).
    pub records: usize,
    /// Whether the file ends in a partial record (a writer killed mid-write).
    pub truncated: bool,
}

/// Reads an event file, checking every record's CRCs.
///
/// # Errors
///
/// A message when the file cannot be read, a CRC does not match or a
/// record is not a well-formed `Event`.
pub fn read_event_file(path: &Path) -> Result<EventFile, String> {
    let bytes = fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = EventFile::default();
    let mut at = 0usize;
    while at < bytes.len() {
        if bytes.len() - at < 12 {
            out.truncated = true;
            break;
        }
        let len_bytes = &bytes[at..at + 8];
        let len = u64::from_le_bytes(len_bytes.try_into().unwrap_or([0; 8])) as usize;
        let len_crc = u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap_or([0; 4]));
        if masked_crc(len_bytes) != len_crc {
            return Err(format!("{}: bad length CRC at byte {at}", path.display()));
        }
        if bytes.len() - at - 12 < len + 4 {
            out.truncated = true;
            break;
        }
        let data = &bytes[at + 12..at + 12 + len];
        let crc = u32::from_le_bytes(
            bytes[at + 12 + len..at + 16 + len]
                .try_into()
                .unwrap_or([0; 4]),
        );
        if masked_crc(data) != crc {
            return Err(format!("{}: bad data CRC at byte {at}", path.display()));
        }
        at += 16 + len;
        out.records += 1;
        let err = |e: String| format!("{}: record {}: {e}", path.display(), out.records);
        let mut step = 0i64;
        let mut summary = None;
        for (f, _, payload, v) in fields(data).map_err(err)? {
            match f {
                2 => step = v as i64,
                5 => summary = Some(payload),
                _ => {}
            }
        }
        let Some(summary) = summary else { continue };
        for (f, _, value, _) in fields(summary).map_err(err)? {
            if f != 1 {
                continue;
            }
            let mut tag = String::new();
            let mut val = None;
            let mut histogram = false;
            for (g, _, p, _) in fields(value).map_err(err)? {
                match g {
                    1 => tag = String::from_utf8_lossy(p).into_owned(),
                    2 => {
                        val = Some(f64::from(f32::from_le_bytes(
                            p.try_into().unwrap_or([0; 4]),
                        )))
                    }
                    5 => {
                        histogram = true;
                        for (h, _, q, _) in fields(p).map_err(err)? {
                            if h == 3 {
                                val = Some(f64::from_le_bytes(q.try_into().unwrap_or([0; 8])));
                            }
                        }
                    }
                    _ => {}
                }
            }
            out.values.push(TbValue {
                tag,
                step,
                value: val.unwrap_or(f64::NAN),
                histogram,
            });
        }
    }
    Ok(out)
}

/// Every value of every event file in `dir`, by tag: `(step, value)` in file order.
/// Unreadable files are skipped.
pub fn read_dir_values(dir: &Path) -> BTreeMap<String, Vec<(i64, f64)>> {
    let mut out: BTreeMap<String, Vec<(i64, f64)>> = BTreeMap::new();
    for f in event_files(dir) {
        if let Ok(ev) = read_event_file(&f) {
            for v in ev.values {
                out.entry(v.tag).or_default().push((v.step, v.value));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32c_matches_the_known_vector() {
        assert_eq!(crc32c(b"123456789"), 0xe306_9283);
    }

    #[test]
    fn bins_cover_all_values() {
        let h = bin(&[-1.0, -0.5, 0.0, 0.99, 1.0, 7.0], -1.0, 1.0, 4);
        assert_eq!(h.counts.iter().sum::<f64>(), 6.0);
        assert_eq!(h.limits.len(), 4);
        assert_eq!(h.max, 7.0);
    }

    #[test]
    fn written_scalars_read_back() {
        let dir = std::env::temp_dir().join(format!("shax-tb-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        {
            let mut w = TbWriter::open(&dir).unwrap();
            w.scalar("loss/total", 1.5, 10);
            w.scalar("eval/score_vs_alphabeta:depth=2", 0.25, 10);
            w.histogram(
                "train/value_predictions",
                &[0.1, -0.2, 0.3],
                -1.0,
                1.0,
                10,
                10,
            );
        }
        {
            // A second writer in the same second must not clobber the first.
            let mut w = TbWriter::open(&dir).unwrap();
            w.scalar("loss/total", 1.25, 20);
        }
        let v = read_dir_values(&dir);
        assert_eq!(v["loss/total"], vec![(10, 1.5), (20, 1.25)]);
        assert_eq!(v["eval/score_vs_alphabeta_depth_2"], vec![(10, 0.25)]);
        assert_eq!(v["train/value_predictions"], vec![(10, 3.0)]);
        let _ = fs::remove_dir_all(&dir);
    }
}
