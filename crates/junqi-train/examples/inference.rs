//! Forward-pass cost of an exported net by batch size, on this machine:
//!
//! ```text
//! cargo run -p junqi-train --release --example inference -- NET.safetensors [cpu|cuda]
//! ```
use junqi_train::{load_net, DeviceChoice, ACTIONS};
use std::time::Instant;
use tch::{Kind, Tensor};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.first().ok_or("usage: inference NET.safetensors [cpu|cuda|auto]")?;
    let device = args.get(1).map_or(Ok(DeviceChoice::Auto), |d| d.parse()).map_err(|e: String| e)?.resolve()?;
    let (_vs, net, info) = load_net(path.as_ref(), device)?;
    println!("device {device:?}, torch threads {}, model {:?}", tch::get_num_threads(), info.model);
    println!("batch  ms/batch  positions/s");
    for b in [1i64, 8, 32, 128, 512] {
        let obs = Tensor::rand([b, info.model.in_channels as i64 * 60], (Kind::Float, device));
        let legal = Tensor::ones([b, ACTIONS], (Kind::Uint8, device));
        let _ = net.predict(&obs, &legal);
        let reps = (2048 / b).max(8);
        let t = Instant::now();
        for _ in 0..reps {
            let (p, v) = net.predict(&obs, &legal);
            let _: Vec<f32> = Vec::try_from(p.to_device(tch::Device::Cpu).reshape([-1]))?;
            let _: Vec<f32> = Vec::try_from(v.to_device(tch::Device::Cpu).reshape([-1]))?;
        }
        let per = t.elapsed().as_secs_f64() / reps as f64;
        println!("{b:>5}  {:>8.3}  {:>11.0}", per * 1e3, b as f64 / per);
    }
    Ok(())
}
