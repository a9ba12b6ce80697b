//! What the HTTP tests share: a server on a free port, one request.

use junqi_serve::{serve, ServeOptions};
use serde_json::Value;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, Instant};

/// `junqi serve` on a free port over no runs (the sample games), with `tc`.
pub fn start_server(tc: Option<&str>) -> SocketAddr {
    let addr = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let tc = tc.map(str::to_string);
    std::thread::spawn(move || serve(ServeOptions { addr, runs: vec![], allow_engines: false, tc }));
    let t = Instant::now();
    while TcpStream::connect(addr).is_err() {
        assert!(t.elapsed() < Duration::from_secs(30), "the server did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    addr
}

/// One request; the status and the body as JSON.
pub fn request(addr: SocketAddr, method: &str, path: &str, body: &Value) -> (u16, Value) {
    let mut s = TcpStream::connect(addr).unwrap();
    let body = body.to_string();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let status: u16 = text.split(' ').nth(1).unwrap().parse().unwrap();
    let (_, payload) = text.split_once("\r\n\r\n").unwrap();
    (status, serde_json::from_str(payload).unwrap_or(Value::String(payload.to_string())))
}
