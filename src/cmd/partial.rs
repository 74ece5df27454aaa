//! `<out>.partial`: a running match's games, each appended as one whole JSON
//! line as it ends, so a match stopped part way loses none it played. The
//! file is created at the first game's end and removed once the match's
//! records are written to `<out>`.

use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use shax_train::GameRecord;

/// The partial records of one match.
pub struct PartialRecords {
    path: PathBuf,
    /// Opened at the first game's end, so a match that plays none leaves no file.
    file: Mutex<Option<File>>,
    warned: AtomicBool,
}

impl PartialRecords {
    /// The partial file of the records `out`: `<out>.partial`.
    pub fn beside(out: &Path) -> PartialRecords {
        let mut name = out.as_os_str().to_owned();
        name.push(".partial");
        PartialRecords {
            path: PathBuf::from(name),
            file: Mutex::new(None),
            warned: AtomicBool::new(false),
        }
    }

    /// Appends `record`. A failure is reported once, on stderr, and the match
    /// goes on: its records are still written whole at the end.
    pub fn keep(&self, record: &GameRecord) {
        if let Err(e) = self.append(record)
            && !self.warned.swap(true, Ordering::Relaxed)
        {
            eprintln!(
                "warning: could not keep games in {} as they end ({e}); they are written to the records at the end",
                self.path.display()
            );
        }
    }

    fn append(&self, record: &GameRecord) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(record)?;
        line.push(b'\n');
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        let f = match &mut *file {
            Some(f) => f,
            empty @ None => empty.insert(File::create(&self.path)?),
        };
        f.write_all(&line)
    }

    /// The match's records are written: the partial file goes.
    pub fn finished(&self) {
        let _ = std::fs::remove_file(&self.path);
    }
}
