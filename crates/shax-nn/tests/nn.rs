//! Behaviour of the network crate, on tiny networks (tests must stay fast).
//!
//! - `evaluator`: output shapes, values in [-1, 1], batch rows independent of
//!   their batch, weights shipped to another thread evaluate identically.
//! - `checkpoint`: exact round trip; autodiff -> inference load; mismatched
//!   rules, encoder version, format version, corrupt or swapped records refused
//!   with errors that name what differs; `init_checkpoint`; averaging
//!   checkpoints, and refusing to average unlike ones.
//! - `training`: a few Adam steps on a fixed batch reduce the AlphaZero loss.

use std::path::PathBuf;

use shax_core::{POLICY_SIZE, Position, Preset, Rules};
use shax_nn::burn::module::Module;
use shax_nn::burn::tensor::{Tensor, TensorData};
use shax_nn::{
    AverageError, Backend, CheckpointError, CheckpointMeta, FEATURES, ModelConfig, NetEvaluator,
    NetWeights, PolicyValueNet, ValueHead, average_checkpoints, encode_batch, init_checkpoint,
    load_checkpoint, load_metadata, load_weights, metadata_path, save_checkpoint,
};
use shax_search::Evaluator;

fn tiny() -> ModelConfig {
    ModelConfig::new()
        .with_hidden(16)
        .with_blocks(1)
        .with_value_hidden(8)
}

/// A few distinct positions of one rule set.
fn positions(rules: Rules, n: usize) -> Vec<Position> {
    let mut out = Vec::new();
    let mut pos = Position::new(rules);
    while out.len() < n {
        out.push(pos);
        let actions = pos.legal_actions();
        if pos.outcome().is_some() || actions.is_empty() {
            pos = Position::new(rules);
            continue;
        }
        pos.play_unchecked(actions[(out.len() * 7) % actions.len()]);
    }
    out
}

fn evaluate(net: PolicyValueNet, positions: &[Position]) -> (Vec<f32>, Vec<f32>) {
    let mut eval = NetEvaluator::new(net, Backend::Cpu.device());
    let mut logits = vec![f32::NAN; positions.len() * POLICY_SIZE];
    let mut values = vec![f32::NAN; positions.len()];
    eval.evaluate(positions, &mut logits, &mut values);
    (logits, values)
}

/// A fresh folder under the target directory's tmp, removed by the test on success.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("shax-nn-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

mod evaluator {
    use super::*;

    #[test]
    fn outputs_have_the_trait_shapes_and_values_in_range() {
        let net = tiny().init(&Backend::Cpu.device());
        let pos = positions(Rules::default(), 13);
        let (logits, values) = evaluate(net, &pos);
        assert!(logits.iter().all(|x| x.is_finite()));
        assert!(values.iter().all(|v| (-1.0..=1.0).contains(v)));
        // Different positions, different outputs.
        assert_ne!(logits[..POLICY_SIZE], logits[POLICY_SIZE..2 * POLICY_SIZE]);
    }

    #[test]
    fn a_row_does_not_depend_on_its_batch() {
        let net = tiny().init(&Backend::Cpu.device());
        let weights = NetWeights::from_net(&tiny(), net).unwrap();
        let mut eval = weights.evaluator().unwrap();
        let pos = positions(Rules::preset(Preset::NineMensMorris), 9);
        let mut all_l = vec![0.0; 9 * POLICY_SIZE];
        let mut all_v = vec![0.0; 9];
        eval.evaluate(&pos, &mut all_l, &mut all_v);
        let mut one_l = vec![0.0; POLICY_SIZE];
        let mut one_v = [0.0];
        eval.evaluate(&pos[4..5], &mut one_l, &mut one_v);
        for (a, b) in one_l.iter().zip(&all_l[4 * POLICY_SIZE..5 * POLICY_SIZE]) {
            // Illegal actions' logits are -inf in both.
            assert!(a == b || (a - b).abs() < 1e-5, "{a} vs {b}");
        }
        assert!((one_v[0] - all_v[4]).abs() < 1e-5);
    }

    #[test]
    fn an_empty_batch_is_a_no_op() {
        let mut eval =
            NetEvaluator::new(tiny().init(&Backend::Cpu.device()), Backend::Cpu.device());
        eval.evaluate(&[], &mut [], &mut []);
        assert_eq!(eval.preferred_batch(), shax_nn::DEFAULT_BATCH);
        assert_eq!(eval.with_preferred_batch(0).preferred_batch(), 1);
    }

    #[test]
    fn weights_are_shareable_and_evaluators_can_move_to_workers() {
        fn send_sync<T: Send + Sync>() {}
        fn send<T: Send>() {}
        send_sync::<NetWeights>();
        send::<NetEvaluator>();
    }

    #[test]
    fn weights_sent_to_another_thread_evaluate_identically() {
        let net = tiny().init(&Backend::Cpu.device());
        let weights = NetWeights::from_net(&tiny(), net).unwrap();
        let pos = positions(Rules::default(), 5);
        let run = move |w: NetWeights, p: Vec<Position>| {
            let mut eval = w.evaluator().unwrap();
            let mut l = vec![0.0; 5 * POLICY_SIZE];
            let mut v = vec![0.0; 5];
            eval.evaluate(&p, &mut l, &mut v);
            (l, v)
        };
        let here = run(weights.clone(), pos.clone());
        let there = std::thread::spawn(move || run(weights, pos))
            .join()
            .unwrap();
        assert!(here == there, "outputs differ across threads");
    }
}

mod checkpoint {
    use super::*;

    fn meta(rules: Rules, config: &ModelConfig) -> CheckpointMeta {
        CheckpointMeta {
            model: config.clone(),
            rules,
            step: 1234,
            created_unix: 1_764_417_600,
        }
    }

    #[test]
    fn round_trip_gives_exactly_the_same_outputs_and_metadata() {
        let dir = temp_dir("roundtrip");
        let path = dir.join("sub/net.bpk");
        let config = tiny().with_layer_norm(false).with_blocks(2);
        let rules = Rules::preset(Preset::Morabaraba);
        let net = config.init(&Backend::Cpu.device());
        let pos = positions(rules, 7);
        let before = evaluate(net.clone(), &pos);
        save_checkpoint(&path, net, &meta(rules, &config)).unwrap();
        assert!(metadata_path(&path).ends_with("net.meta.toml"));
        let text = std::fs::read_to_string(metadata_path(&path)).unwrap();
        assert!(text.starts_with("format_version = 4\n"), "{text}");

        let loaded = load_checkpoint(&path, Some(&rules), &Backend::Cpu.device()).unwrap();
        assert_eq!(loaded.meta, meta(rules, &config));
        assert!(
            evaluate(loaded.net, &pos) == before,
            "outputs differ after the round trip"
        );
        assert_eq!(load_metadata(&path, None).unwrap(), meta(rules, &config));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_network_saved_from_autodiff_loads_into_inference_with_identical_outputs() {
        let dir = temp_dir("autodiff");
        let path = dir.join("net.bpk");
        let config = tiny();
        let device = Backend::Cpu.training_device();
        assert!(device.is_autodiff());
        let net = config.init(&device);
        let pos = positions(Rules::default(), 6);
        // Outputs of the trained network itself, on the autodiff device.
        let mut x = Vec::new();
        encode_batch(&pos, 1, &mut x);
        let input = Tensor::<2>::from_data(TensorData::new(x, [pos.len(), FEATURES]), &device);
        let (l, v) = net.forward(input);
        let expected_l = l.try_into_vec_as::<f32>().unwrap();
        let expected_v = v.try_into_vec_as::<f32>().unwrap();

        save_checkpoint(&path, net.clone(), &meta(Rules::default(), &config)).unwrap();
        let loaded = load_checkpoint(&path, None, &Backend::Cpu.device()).unwrap();
        let (l2, v2) = evaluate(loaded.net, &pos);
        // Bit-identical to the in-memory inference copy of the trained network.
        assert!(evaluate(net.valid(), &pos) == (l2.clone(), v2.clone()));
        // The autodiff device runs other kernels: equal up to float rounding.
        let max_diff = |a: &[f32], b: &[f32]| {
            assert_eq!(a.len(), b.len());
            a.iter()
                .zip(b)
                .map(|(x, y)| (x - y).abs())
                .fold(0.0f32, f32::max)
        };
        assert!(
            max_diff(&l2, &expected_l) < 1e-5,
            "{}",
            max_diff(&l2, &expected_l)
        );
        assert!(
            max_diff(&v2, &expected_v) < 1e-5,
            "{}",
            max_diff(&v2, &expected_v)
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn mismatched_rules_are_refused_naming_each_difference() {
        let dir = temp_dir("rules");
        let path = dir.join("net.bpk");
        init_checkpoint(&Rules::preset(Preset::NineMensMorris), &tiny(), &path).unwrap();
        let expected = Rules::preset(Preset::Morabaraba);
        let err = load_checkpoint(&path, Some(&expected), &Backend::Cpu.device()).unwrap_err();
        assert!(
            matches!(err, CheckpointError::RulesMismatch { .. }),
            "{err:?}"
        );
        let msg = err.to_string();
        assert!(msg.contains("nine-mens-morris vs morabaraba"), "{msg}");
        assert!(
            msg.contains("board: checkpoint \"plain\", expected \"diagonal\""),
            "{msg}"
        );
        assert!(msg.contains("pieces: checkpoint 9, expected 12"), "{msg}");
        // A custom override differs in one key only.
        let mut custom = Rules::preset(Preset::NineMensMorris);
        custom.flying = 0;
        let msg = load_metadata(&path, Some(&custom)).unwrap_err().to_string();
        assert!(msg.ends_with("flying: checkpoint 3, expected 0"), "{msg}");
        // Without expected rules, or with the same, it loads.
        assert!(load_checkpoint(&path, None, &Backend::Cpu.device()).is_ok());
        std::fs::remove_dir_all(dir).unwrap();
    }

    fn rewrite_meta(path: &std::path::Path, from: &str, to: &str) {
        let meta = metadata_path(path);
        let text = std::fs::read_to_string(&meta).unwrap();
        assert!(text.contains(from));
        std::fs::write(&meta, text.replacen(from, to, 1)).unwrap();
    }

    #[test]
    fn another_encoder_or_format_version_is_refused() {
        let dir = temp_dir("versions");
        let path = dir.join("net.bpk");
        init_checkpoint(&Rules::default(), &tiny(), &path).unwrap();
        rewrite_meta(&path, "encoder_version = 1\n", "encoder_version = 99\n");
        let err = load_checkpoint(&path, None, &Backend::Cpu.device()).unwrap_err();
        assert!(matches!(
            err,
            CheckpointError::EncoderVersion {
                found: 99,
                expected: 2,
                ..
            }
        ));
        assert!(err.to_string().contains("encoder_version 99"), "{err}");
        // The top-level version and [model]'s must agree.
        rewrite_meta(&path, "encoder_version = 99\n", "encoder_version = 2\n");
        let err = load_checkpoint(&path, None, &Backend::Cpu.device()).unwrap_err();
        assert!(err.to_string().contains("[model] encoder = 1"), "{err}");

        rewrite_meta(&path, "format_version = 4\n", "format_version = 5\n");
        let err = load_checkpoint(&path, None, &Backend::Cpu.device()).unwrap_err();
        assert!(
            matches!(err, CheckpointError::FormatVersion { found: 5, .. }),
            "{err:?}"
        );
        assert!(err.to_string().contains("reads 1 to 4"), "{err}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// A version 2 network (line and mobility planes) saves, loads and
    /// evaluates as it did; a format 2 file (no `encoder` in `[model]`) is
    /// version 1.
    #[test]
    fn encoder_versions_round_trip_through_checkpoints() {
        let dir = temp_dir("encoder2");
        let path = dir.join("net.bpk");
        let config = tiny().with_encoder(2);
        let rules = Rules::preset(Preset::NineMensMorris);
        let net = config.init(&Backend::Cpu.device());
        let pos = positions(rules, 5);
        let before = evaluate(net.clone(), &pos);
        save_checkpoint(&path, net, &meta(rules, &config)).unwrap();
        let text = std::fs::read_to_string(metadata_path(&path)).unwrap();
        assert!(text.contains("encoder_version = 2\n") && text.contains("encoder = 2\n"));
        let loaded = load_checkpoint(&path, Some(&rules), &Backend::Cpu.device()).unwrap();
        assert_eq!(loaded.meta.model.encoder, 2);
        assert_eq!(loaded.net.encoder(), 2);
        assert!(evaluate(loaded.net, &pos) == before);

        init_checkpoint(&rules, &tiny(), &path).unwrap();
        rewrite_meta(&path, "encoder = 1\n", "");
        rewrite_meta(&path, "format_version = 4\n", "format_version = 2\n");
        let loaded = load_checkpoint(&path, Some(&rules), &Backend::Cpu.device()).unwrap();
        assert_eq!(loaded.meta.model.encoder, 1);
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// Format 1 had no `value_head`: its networks (the Shax tiers shipped
    /// until 2026-12-02 among them) have the scalar head and load as such; a
    /// later file without the key is refused.
    #[test]
    fn format_1_checkpoints_load_with_the_scalar_head() {
        let dir = temp_dir("format1");
        let path = dir.join("net.bpk");
        let scalar = tiny().with_value_head(ValueHead::Scalar);
        init_checkpoint(&Rules::default(), &scalar, &path).unwrap();
        rewrite_meta(&path, "value_head = \"scalar\"\n", "");
        let err = load_checkpoint(&path, None, &Backend::Cpu.device()).unwrap_err();
        assert!(matches!(err, CheckpointError::Record { .. }), "{err:?}");
        rewrite_meta(&path, "format_version = 4\n", "format_version = 1\n");
        let ck = load_checkpoint(&path, None, &Backend::Cpu.device()).unwrap();
        assert_eq!(ck.meta.model, scalar);
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// A network with the material head saves and loads with it, evaluating
    /// as before; a format 3 file (no `material_head` key) is a network without.
    #[test]
    fn the_material_head_round_trips_and_format_3_has_none() {
        let dir = temp_dir("material");
        let path = dir.join("net.bpk");
        let config = tiny().with_material_head(true);
        let rules = Rules::preset(Preset::Morabaraba);
        let net = config.init(&Backend::Cpu.device());
        assert!(net.has_material_head());
        assert_eq!(net.num_params(), config.num_params());
        assert!(config.num_params() > tiny().num_params());
        let pos = positions(rules, 5);
        let before = evaluate(net.clone(), &pos);
        save_checkpoint(&path, net, &meta(rules, &config)).unwrap();
        let loaded = load_checkpoint(&path, Some(&rules), &Backend::Cpu.device()).unwrap();
        assert!(loaded.meta.model.material_head && loaded.net.has_material_head());
        assert!(evaluate(loaded.net, &pos) == before);

        init_checkpoint(&rules, &tiny(), &path).unwrap();
        rewrite_meta(&path, "material_head = false\n", "");
        rewrite_meta(&path, "format_version = 4\n", "format_version = 3\n");
        let loaded = load_checkpoint(&path, Some(&rules), &Backend::Cpu.device()).unwrap();
        assert!(!loaded.meta.model.material_head && !loaded.net.has_material_head());
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn missing_corrupt_or_foreign_files_are_errors_not_panics() {
        let dir = temp_dir("corrupt");
        let dev = Backend::Cpu.device();
        let path = dir.join("net.bpk");
        let err = load_checkpoint(&path, None, &dev).unwrap_err();
        assert!(matches!(err, CheckpointError::Io { .. }), "{err:?}");

        init_checkpoint(&Rules::default(), &tiny(), &path).unwrap();
        // A record from another save (a race, or a copied file) is refused.
        let other = dir.join("other.bpk");
        init_checkpoint(&Rules::default(), &tiny(), &other).unwrap();
        std::fs::copy(&other, &path).unwrap();
        let err = load_checkpoint(&path, None, &dev).unwrap_err();
        assert!(matches!(err, CheckpointError::Record { .. }), "{err:?}");
        // A truncated record.
        let bytes = std::fs::read(&other).unwrap();
        std::fs::write(&other, &bytes[..bytes.len() / 2]).unwrap();
        assert!(matches!(
            load_checkpoint(&other, None, &dev).unwrap_err(),
            CheckpointError::Record { .. }
        ));
        // Garbage metadata, a missing key, a bad model section.
        std::fs::write(metadata_path(&path), "format_version = [").unwrap();
        assert!(matches!(
            load_metadata(&path, None),
            Err(CheckpointError::Metadata { .. })
        ));
        std::fs::write(
            metadata_path(&path),
            "format_version = 1\nencoder_version = 1\n",
        )
        .unwrap();
        let msg = load_metadata(&path, None).unwrap_err().to_string();
        assert!(msg.contains("missing key step"), "{msg}");
        init_checkpoint(&Rules::default(), &tiny(), &path).unwrap();
        rewrite_meta(&path, "hidden = 16", "hidden = 0");
        let msg = load_metadata(&path, None).unwrap_err().to_string();
        assert!(msg.contains("[model]") && msg.contains("hidden"), "{msg}");
        // A record of another shape under honest metadata is a Record error.
        init_checkpoint(&Rules::default(), &tiny(), &path).unwrap();
        let meta_text = std::fs::read_to_string(metadata_path(&path)).unwrap();
        init_checkpoint(&Rules::default(), &tiny().with_hidden(24), &path).unwrap();
        let wider = std::fs::read_to_string(metadata_path(&path)).unwrap();
        let (head, _) = wider.split_once("\n[model]").unwrap();
        let (_, tail) = meta_text.split_once("\n[model]").unwrap();
        std::fs::write(metadata_path(&path), format!("{head}\n[model]{tail}")).unwrap();
        let err = load_checkpoint(&path, None, &dev).unwrap_err();
        assert!(matches!(err, CheckpointError::Record { .. }), "{err:?}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn init_checkpoint_writes_a_loadable_fresh_network() {
        let dir = temp_dir("init");
        let path = dir.join("fresh.bpk");
        let rules = Rules::preset(Preset::ShaxFlying);
        let meta = init_checkpoint(&rules, &tiny(), &path).unwrap();
        assert_eq!(meta.step, 0);
        assert!(meta.created_unix > 1_700_000_000);
        let loaded = load_checkpoint(&path, Some(&rules), &Backend::Cpu.device()).unwrap();
        assert_eq!(loaded.meta, meta);
        // The same network as shareable weights, for worker threads.
        let (meta2, weights) = load_weights(&path, Some(&rules)).unwrap();
        assert_eq!(meta2, meta);
        let pos = positions(rules, 4);
        let direct = evaluate(loaded.net, &pos);
        let shared = evaluate(weights.net(&Backend::Cpu.device()).unwrap(), &pos);
        assert!(direct == shared, "load_weights gives another network");
        let leftovers: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.contains(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
        let bad = init_checkpoint(&rules, &tiny().with_blocks(1000), &path).unwrap_err();
        assert!(bad.to_string().contains("blocks"), "{bad}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn averaged_checkpoints_play_as_the_mean_network_and_unlike_ones_are_refused() {
        let dir = temp_dir("average");
        let rules = Rules::preset(Preset::Morabaraba);
        let (a, b, out) = (dir.join("a.bpk"), dir.join("b.bpk"), dir.join("mean.bpk"));
        init_checkpoint(&rules, &tiny(), &a).unwrap();
        init_checkpoint(&rules, &tiny(), &b).unwrap();
        let meta = average_checkpoints(&[a.clone(), b.clone()], &out).unwrap();
        assert_eq!(meta.model, tiny());
        let device = Backend::Cpu.device();
        let load = |p: &PathBuf| load_checkpoint(p, Some(&rules), &device).unwrap().net;
        // The network of averaged weights, rebuilt by hand from the inputs' records.
        let (na, nb) = (load(&a), load(&b));
        let expected = shax_nn::average_nets(vec![na.clone(), nb.clone()]).unwrap();
        let pos = positions(rules, 5);
        assert!(evaluate(load(&out), &pos) == evaluate(expected, &pos));
        assert!(evaluate(load(&out), &pos) != evaluate(na, &pos));

        // The mean of a checkpoint alone is that checkpoint's network.
        average_checkpoints(std::slice::from_ref(&a), &out).unwrap();
        assert!(evaluate(load(&out), &pos) == evaluate(load(&a), &pos));

        let wide = dir.join("wide.bpk");
        init_checkpoint(&rules, &tiny().with_hidden(32), &wide).unwrap();
        let err = average_checkpoints(&[a.clone(), wide.clone()], &out).unwrap_err();
        assert!(matches!(err, AverageError::Mismatch { .. }), "{err:?}");
        assert!(
            err.to_string().contains("another network configuration"),
            "{err}"
        );
        assert!(err.to_string().contains("wide.bpk"), "{err}");

        let other = dir.join("nmm.bpk");
        init_checkpoint(&Rules::preset(Preset::NineMensMorris), &tiny(), &other).unwrap();
        let err = average_checkpoints(&[a.clone(), other], &out).unwrap_err();
        assert!(
            err.to_string()
                .contains("other rules (preset: checkpoint \"nine-mens-morris\""),
            "{err}"
        );

        let missing = dir.join("missing.bpk");
        let err = average_checkpoints(&[a, missing], &out).unwrap_err();
        assert!(err.to_string().contains("missing.meta.toml"), "{err}");
        assert!(matches!(
            average_checkpoints(&[], &out),
            Err(AverageError::Empty)
        ));
        std::fs::remove_dir_all(dir).unwrap();
    }
}

mod training {
    use super::*;
    use shax_nn::alphazero_loss;
    use shax_nn::burn::optim::{AdamConfig, GradientsParams};

    /// The example the training loop builds on: Adam on the autodiff device.
    #[test]
    fn a_few_adam_steps_reduce_the_loss_on_a_fixed_batch() {
        let device = Backend::Cpu.training_device();
        device.seed(7);
        let config = tiny().with_hidden(32);
        let mut net = config.init(&device);
        let pos = positions(Rules::default(), 16);
        let n = pos.len();
        let mut x = Vec::new();
        encode_batch(&pos, 1, &mut x);
        let input = Tensor::<2>::from_data(TensorData::new(x, [n, FEATURES]), &device);
        // Targets: all probability on one legal action; results alternate win, loss.
        let mut policy = vec![0.0f32; n * POLICY_SIZE];
        for (i, p) in pos.iter().enumerate() {
            let a = p.legal_actions()[0];
            policy[i * POLICY_SIZE + a.policy_index()] = 1.0;
        }
        let values: Vec<f32> = (0..n)
            .flat_map(|i| {
                if i % 2 == 0 {
                    [1.0, 0.0, 0.0]
                } else {
                    [0.0, 0.0, 1.0]
                }
            })
            .collect();
        let target_p = Tensor::<2>::from_data(TensorData::new(policy, [n, POLICY_SIZE]), &device);
        let target_v = Tensor::<2>::from_data(TensorData::new(values, [n, 3]), &device);

        let mut optim = AdamConfig::new().init();
        let mut losses = Vec::new();
        for _ in 0..20 {
            let (logits, value) = net.forward_raw(input.clone());
            let loss = alphazero_loss(logits, value, target_p.clone(), target_v.clone());
            let loss = loss.policy + loss.value;
            losses.push(loss.clone().try_into_vec_as::<f32>().unwrap()[0]);
            let grads = GradientsParams::from_grads(loss.backward(), &net);
            net = optim.step(3e-3, net, grads);
        }
        eprintln!("loss per Adam step: {losses:?}");
        let (first, last) = (losses[0], *losses.last().unwrap());
        assert!(first.is_finite() && last.is_finite());
        // Uniform-ish start: cross-entropy near ln(600) = 6.4.
        assert!(first > 5.0, "{losses:?}");
        assert!(last < 0.6 * first, "{losses:?}");
    }
}
