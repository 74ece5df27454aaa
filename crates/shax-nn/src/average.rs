//! Weight averaging: one network whose every weight is the mean of the same
//! weight in several checkpoints of one shape.
//!
//! Networks from nearby points of one training run sit in one basin of the
//! loss, and their mean usually plays at least as well as each (stochastic
//! weight averaging; KataGo and lc0 both ship averaged weights). The mean of
//! unrelated networks (two runs from different random weights) is not a
//! network of either, so [`average_checkpoints`] asks for one shape and rules
//! but cannot tell lineages apart: that is the caller's to know.

use std::path::{Path, PathBuf};

use burn::module::{Module, ModuleMapper, ModuleVisitor, Param};
use burn::tensor::{Tensor, TensorData};

use crate::checkpoint::{CheckpointError, CheckpointMeta, load_checkpoint, save_checkpoint};
use crate::model::PolicyValueNet;

/// Every float parameter of a network, flattened, in the module's own order.
struct Collect(Vec<Vec<f32>>);

impl ModuleVisitor for Collect {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        let values = param
            .val()
            .try_into_vec_as::<f32>()
            .expect("a float parameter reads as f32");
        self.0.push(values);
    }
}

/// Replaces each float parameter, in the module's order, by the next of `values`.
struct Replace(std::vec::IntoIter<Vec<f32>>);

impl ModuleMapper for Replace {
    fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
        let values = self.0.next().expect("one value list per parameter");
        param.map(|t| {
            let data = TensorData::new(values, t.shape());
            Tensor::from_data(data, &t.device())
        })
    }
}

fn parameters(net: &PolicyValueNet) -> Vec<Vec<f32>> {
    let mut collect = Collect(Vec::new());
    net.visit(&mut collect);
    collect.0
}

/// The network whose every weight is the mean of that weight in `nets`, all
/// of one configuration (the caller checks). `None` for no networks.
pub fn average_nets(nets: Vec<PolicyValueNet>) -> Option<PolicyValueNet> {
    let n = nets.len() as f32;
    let mut nets = nets.into_iter();
    let first = nets.next()?;
    let mut sums = parameters(&first);
    for net in nets {
        for (sum, values) in sums.iter_mut().zip(parameters(&net)) {
            for (s, v) in sum.iter_mut().zip(values) {
                *s += v;
            }
        }
    }
    for sum in &mut sums {
        for s in sum.iter_mut() {
            *s /= n;
        }
    }
    Some(first.map(&mut Replace(sums.into_iter())))
}

/// Why checkpoints could not be averaged.
#[derive(Debug, thiserror::Error)]
pub enum AverageError {
    /// Nothing to average.
    #[error("no checkpoints to average")]
    Empty,
    /// A checkpoint could not be read, or the mean could not be written.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// A checkpoint's network or rules differ from the first one's.
    #[error("{path} does not match {first}: {what}")]
    Mismatch {
        /// The checkpoint that differs.
        path: PathBuf,
        /// The first checkpoint.
        first: PathBuf,
        /// What differs.
        what: String,
    },
}

/// Averages the checkpoints `inputs` (one network configuration and one set
/// of rules) into the checkpoint `out`, whose step is the newest input's.
/// Returns the written metadata.
///
/// # Errors
///
/// [`AverageError::Empty`] for no inputs, [`AverageError::Mismatch`] naming
/// the first input whose network or rules differ, and every error of loading
/// and saving a checkpoint.
pub fn average_checkpoints(inputs: &[PathBuf], out: &Path) -> Result<CheckpointMeta, AverageError> {
    let first_path = inputs.first().ok_or(AverageError::Empty)?;
    let device = crate::Backend::Cpu.device();
    let first = load_checkpoint(first_path, None, &device)?;
    let mut meta = first.meta;
    let mut nets = vec![first.net];
    for path in &inputs[1..] {
        let mismatch = |what: &str| AverageError::Mismatch {
            path: path.clone(),
            first: first_path.clone(),
            what: what.to_string(),
        };
        let next = load_checkpoint(path, Some(&meta.rules), &device).map_err(|e| match e {
            CheckpointError::RulesMismatch { differences, .. } => {
                mismatch(&format!("other rules ({differences})"))
            }
            e => e.into(),
        })?;
        if next.meta.model != meta.model {
            return Err(mismatch("another network configuration"));
        }
        meta.step = meta.step.max(next.meta.step);
        meta.created_unix = meta.created_unix.max(next.meta.created_unix);
        nets.push(next.net);
    }
    let net = average_nets(nets).ok_or(AverageError::Empty)?;
    save_checkpoint(out, net, &meta)?;
    Ok(meta)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ModelConfig;

    fn small() -> ModelConfig {
        ModelConfig::new()
            .with_hidden(16)
            .with_blocks(1)
            .with_value_hidden(8)
    }

    #[test]
    fn the_mean_of_two_networks_is_their_weights_mean() {
        let device = crate::Backend::Cpu.device();
        let a = small().init(&device);
        let b = small().init(&device);
        let (pa, pb) = (parameters(&a), parameters(&b));
        assert_ne!(pa, pb, "two initialisations differ");
        let mean = parameters(&average_nets(vec![a, b]).unwrap());
        assert_eq!(mean.len(), pa.len());
        for ((m, x), y) in mean.iter().zip(&pa).zip(&pb) {
            assert_eq!(m.len(), x.len());
            for ((m, x), y) in m.iter().zip(x).zip(y) {
                assert!((m - (x + y) / 2.0).abs() <= 1e-6 * (1.0 + x.abs() + y.abs()));
            }
        }
    }

    #[test]
    fn the_mean_of_one_network_is_itself() {
        let device = crate::Backend::Cpu.device();
        let a = small().init(&device);
        let before = parameters(&a);
        assert_eq!(parameters(&average_nets(vec![a]).unwrap()), before);
        assert!(average_nets(Vec::new()).is_none());
    }
}
