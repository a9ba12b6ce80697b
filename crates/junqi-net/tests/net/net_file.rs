//! Net files are checked whole: the checksum covers the metadata as well as
//! the tensors (an edited `"blocks":3` is refused, not run as another net),
//! the tensors must be exactly those of the architecture (an extra, a
//! missing or a misshapen tensor is refused; a deployment model may come
//! on top), files from before the metadata checksum still read and can be
//! re-signed, and every shipped net is signed.

use junqi_net::{ModelConfig, NetFile, PolicyHead};
use std::path::{Path, PathBuf};

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("junqi-net-file-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The shipped nets' shape, small.
fn model() -> ModelConfig {
    ModelConfig { blocks: 3, channels: 8, value_hidden: 16, policy_head: PolicyHead::Bilinear, ..Default::default() }
}

/// `net` written to `dir/name` and its bytes.
fn written(dir: &Path, name: &str, net: &NetFile) -> (PathBuf, Vec<u8>) {
    let path = dir.join(name);
    net.write(&path).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    (path, bytes)
}

/// The error reading `bytes` (as `path`), or a panic if they read.
fn refused(path: &Path, bytes: &[u8]) -> String {
    match NetFile::parse(path, bytes) {
        Ok(_) => panic!("{}: accepted", path.display()),
        Err(e) => {
            let e = e.to_string();
            eprintln!("{e}");
            assert!(e.contains(&path.display().to_string()) && e.contains("not a usable net"), "{e}");
            e
        }
    }
}

/// `bytes` with `from` replaced by `to` (same length) once in the header.
fn replaced(bytes: &[u8], from: &str, to: &str) -> Vec<u8> {
    assert_eq!(from.len(), to.len());
    let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    let header = &bytes[8..8 + n];
    let at = header.windows(from.len()).position(|w| w == from.as_bytes()).unwrap_or_else(|| panic!("no {from}"));
    let mut out = bytes.to_vec();
    out[8 + at..8 + at + to.len()].copy_from_slice(to.as_bytes());
    out
}

/// `bytes` with the header's JSON changed by `f` (the data left as is).
fn edit_header(bytes: &[u8], f: impl FnOnce(&mut serde_json::Value)) -> Vec<u8> {
    let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    let mut header: serde_json::Value = serde_json::from_slice(&bytes[8..8 + n]).unwrap();
    f(&mut header);
    let mut text = serde_json::to_vec(&header).unwrap();
    while !text.len().is_multiple_of(8) {
        text.push(b' ');
    }
    let mut out = (text.len() as u64).to_le_bytes().to_vec();
    out.extend(text);
    out.extend(&bytes[8 + n..]);
    out
}

/// The file as a version before `checksum_fnv1a64` wrote it.
fn unsigned(bytes: &[u8]) -> Vec<u8> {
    edit_header(bytes, |h| {
        h["__metadata__"].as_object_mut().unwrap().remove("checksum_fnv1a64").expect("signed");
    })
}

#[test]
fn an_edited_metadata_byte_is_refused() {
    let dir = temp_dir("metadata");
    let mut net = NetFile::random(&model(), 1);
    net.step = 1234;
    let (path, bytes) = written(&dir, "net.safetensors", &net);
    let file = NetFile::parse(&path, &bytes).unwrap();
    assert_eq!((file.model.blocks, file.step), (3, 1234));
    assert!(file.metadata.contains_key("checksum_fnv1a64") && file.metadata.contains_key("data_fnv1a64"));
    // `"blocks":3` → `2`: the net of 2 blocks would run (its tensors are
    // all there, the third block's would be extra): the checksum says no.
    let e = refused(&path, &replaced(&bytes, r#"\"blocks\":3"#, r#"\"blocks\":2"#));
    assert!(e.contains("checksum_fnv1a64"), "{e}");
    // Any other metadata: the step, the format's version, the checksum itself.
    for (from, to) in [(r#""1234""#, r#""1235""#), ("junqi-net/1", "junqi-net/2")] {
        refused(&path, &replaced(&bytes, from, to));
    }
    let sum = &file.metadata["checksum_fnv1a64"];
    let flipped = format!("{}{}", if sum.starts_with('0') { '1' } else { '0' }, &sum[1..]);
    let e = refused(&path, &replaced(&bytes, sum, &flipped));
    assert!(e.contains("checksum_fnv1a64"), "{e}");
    // A byte of tensor data.
    let mut data = bytes.clone();
    let last = data.len() - 1;
    data[last] ^= 0x40;
    refused(&path, &data);
    // A metadata entry added (same data, same other entries).
    let added = edit_header(&bytes, |h| {
        h["__metadata__"]["note"] = "hello".into();
    });
    let e = refused(&path, &added);
    assert!(e.contains("checksum_fnv1a64"), "{e}");
    // Without either checksum.
    let neither = edit_header(&unsigned(&bytes), |h| {
        h["__metadata__"].as_object_mut().unwrap().remove("data_fnv1a64");
    });
    let e = refused(&path, &neither);
    assert!(e.contains("no `checksum_fnv1a64`"), "{e}");
    // A bit flipped in the checksum's key name does not pass as an older,
    // unsigned file: (now) `checksum_fnv1a6t` is a key no version wrote.
    let renamed = replaced(&bytes, "checksum_fnv1a64", "checksum_fnv1a6t");
    let e = refused(&path, &renamed);
    assert!(e.contains("`checksum_fnv1a6t` no version without it wrote"), "{e}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_tensors_must_be_exactly_the_architectures() {
    let dir = temp_dir("tensors");
    let good = NetFile::random(&model(), 2);
    let names: Vec<&String> = good.tensors.keys().collect();
    let expected = NetFile::expected_tensors(&model());
    assert_eq!(expected.len(), names.len());
    for (name, (shape, _)) in &good.tensors {
        assert_eq!(expected.get(name), Some(shape), "{name}");
    }
    let (path, bytes) = written(&dir, "good.safetensors", &good);
    NetFile::parse(&path, &bytes).unwrap();

    // An extra tensor: a fourth block's, or anything else.
    for extra in ["blocks.3.a.conv.weight", "zzz"] {
        let mut net = good.clone();
        net.tensors.insert(extra.into(), (vec![8, 8, 3, 3], vec![0.5; 8 * 8 * 9]));
        let (path, bytes) = written(&dir, "extra.safetensors", &net);
        let e = refused(&path, &bytes);
        assert!(e.contains(&format!("`{extra}` is not part of a net")), "{e}");
    }
    // A missing one.
    let mut net = good.clone();
    net.tensors.remove("value_out.bias");
    let (path, bytes) = written(&dir, "missing.safetensors", &net);
    let e = refused(&path, &bytes);
    assert!(e.contains("no tensor `value_out.bias`"), "{e}");
    // A misshapen one.
    let mut net = good.clone();
    net.tensors.get_mut("policy.weight").unwrap().0 = vec![8, 8, 1, 1, 1];
    let (path, bytes) = written(&dir, "shape.safetensors", &net);
    let e = refused(&path, &bytes);
    assert!(e.contains("`policy.weight` has shape [8, 8, 1, 1, 1]"), "{e}");
    // Metadata that says 2 blocks over 3 blocks' tensors, signed: the third is extra.
    let mut net = good.clone();
    net.model.blocks = 2;
    let (path, bytes) = written(&dir, "fewer.safetensors", &net);
    let e = refused(&path, &bytes);
    assert!(e.contains("`blocks.2.a.bn.bias` is not part of a net"), "{e}");

    // A deployment model may come with the net, all of it.
    let mut net = good.clone();
    net.set_deployment_model(&junqi_bots::DeploymentModel::uniform());
    let (path, bytes) = written(&dir, "deploy.safetensors", &net);
    let file = NetFile::parse(&path, &bytes).unwrap();
    assert!(file.deployment_model().unwrap().is_some());
    net.tensors.remove("deploy.temperature");
    let (path, bytes) = written(&dir, "half-deploy.safetensors", &net);
    let e = refused(&path, &bytes);
    assert!(e.contains("no tensor `deploy.temperature`"), "{e}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn older_files_read_and_re_sign_to_the_same_tensors() {
    let dir = temp_dir("older");
    let mut net = NetFile::random(&model(), 3);
    net.set_deployment_model(&junqi_bots::DeploymentModel::uniform());
    let (path, bytes) = written(&dir, "net.safetensors", &net);
    let old = unsigned(&bytes);
    std::fs::write(&path, &old).unwrap();
    // Read (with a warning): only the data is checked…
    let before = NetFile::read(&path).unwrap();
    assert!(!before.metadata.contains_key("checksum_fnv1a64"));
    let mut data = old.clone();
    let last = data.len() - 1;
    data[last] ^= 1;
    refused(&path, &data);
    // …but an edited architecture still does not run: the tensors do not fit it.
    let e = refused(&path, &replaced(&old, r#"\"blocks\":3"#, r#"\"blocks\":2"#));
    assert!(e.contains("`blocks.2.a.bn.bias` is not part of a net"), "{e}");
    // Re-signed: the same tensors bit for bit, the same metadata plus the checksum.
    NetFile::resign(&path).unwrap();
    let after = NetFile::read(&path).unwrap();
    assert_same(&before, &after);
    let signed = std::fs::read(&path).unwrap();
    refused(&path, &replaced(&signed, r#"\"blocks\":3"#, r#"\"blocks\":2"#));
    // Again: nothing changes.
    NetFile::resign(&path).unwrap();
    assert_eq!(std::fs::read(&path).unwrap().len(), signed.len());
    assert_same(&after, &NetFile::read(&path).unwrap());
    std::fs::remove_dir_all(dir).unwrap();
}

/// `after` is `before` re-signed: tensors bit-identical, metadata identical
/// but for the added `checksum_fnv1a64`.
fn assert_same(before: &NetFile, after: &NetFile) {
    assert_eq!((&before.format, &before.model, before.step), (&after.format, &after.model, after.step));
    let mut meta = after.metadata.clone();
    assert!(meta.remove("checksum_fnv1a64").is_some());
    let mut old = before.metadata.clone();
    old.remove("checksum_fnv1a64");
    assert_eq!(old, meta);
    assert_eq!(before.tensors.len(), after.tensors.len());
    for (name, (shape, values)) in &before.tensors {
        let (s, v) = &after.tensors[name];
        assert_eq!(shape, s, "{name}");
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(values), bits(v), "{name}");
    }
}

/// Every `.safetensors` under `data/`, of either game, carries the checksum
/// over its metadata.
#[test]
fn every_shipped_net_is_signed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data");
    let mut todo = vec![root];
    let mut nets = 0;
    while let Some(dir) = todo.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|x| x == "safetensors") {
                let file = NetFile::read_either(&p).unwrap_or_else(|e| panic!("{e}"));
                assert!(file.metadata.contains_key("checksum_fnv1a64"), "{}: not signed", p.display());
                nets += 1;
            }
        }
    }
    assert!(nets >= 7, "{nets} nets");
}

/// The same net written twice gives the same bytes: the metadata's keys are
/// written in sorted order, whatever order its map holds them in (a
/// `HashMap`'s order changes from one map, and one process, to the next).
#[test]
fn two_writes_of_one_net_are_the_same_bytes() {
    let dir = temp_dir("same-bytes");
    let net = NetFile::random(&model(), 7);
    let mut reordered = net.clone();
    let mut keys: Vec<(String, String)> = net.metadata.clone().into_iter().collect();
    for k in 0..20 {
        keys.push((format!("extra-{k}"), format!("value {k}")));
    }
    let mut a = net.clone();
    a.metadata = keys.iter().cloned().collect();
    reordered.metadata = keys.iter().rev().cloned().collect();
    let (path, first) = written(&dir, "a.safetensors", &a);
    let (_, second) = written(&dir, "b.safetensors", &reordered);
    assert_eq!(first, second, "metadata order changed the bytes");
    let n = u64::from_le_bytes(first[..8].try_into().unwrap()) as usize;
    assert_eq!(n % 8, 0, "the data starts 8-aligned");
    let header = std::str::from_utf8(&first[8..8 + n]).unwrap();
    assert!(header.starts_with("{\"__metadata__\":{"), "{header}");
    // Each key where it opens an entry (`{"k":` or `,"k":`; inside a value quotes are escaped).
    let at =
        |k: &str| [format!("{{\"{k}\":"), format!(",\"{k}\":")].iter().find_map(|p| header.find(p.as_str())).unwrap();
    let mut names: Vec<&str> = back_keys(&a);
    names.sort();
    let places: Vec<usize> = names.iter().map(|k| at(k)).collect();
    assert!(places.windows(2).all(|w| w[0] < w[1]), "keys out of order: {header}");
    let back = NetFile::read(&path).unwrap();
    assert_eq!(back.tensors, net.tensors);
    assert_eq!(back.metadata.get("extra-3").map(String::as_str), Some("value 3"));
    let _ = std::fs::remove_dir_all(dir);
}

fn back_keys(net: &NetFile) -> Vec<&str> {
    net.metadata.keys().map(String::as_str).filter(|k| !["format", "architecture", "step"].contains(k)).collect()
}
