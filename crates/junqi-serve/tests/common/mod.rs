//! What the HTTP tests share: a server on a free port, one request.
#![allow(dead_code)] // each test file uses some of these

use junqi_serve::{serve, ServeOptions};
use serde_json::Value;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, Instant};

/// `junqi serve` on a free port over no runs (the sample games), with `tc`.
pub fn start_server(tc: Option<&str>) -> SocketAddr {
    start_server_on(vec![], tc)
}

/// `junqi serve` on a free port over `runs`, with `tc`.
pub fn start_server_on(runs: Vec<std::path::PathBuf>, tc: Option<&str>) -> SocketAddr {
    let addr = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let tc = tc.map(str::to_string);
    std::thread::spawn(move || serve(ServeOptions { addr, runs, allow_engines: false, tc }));
    let t = Instant::now();
    while TcpStream::connect(addr).is_err() {
        assert!(t.elapsed() < Duration::from_secs(30), "the server did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    addr
}

/// One request; the status and the body as JSON.
pub fn request(addr: SocketAddr, method: &str, path: &str, body: &Value) -> (u16, Value) {
    let (status, _, payload) = raw_request(addr, method, path, &body.to_string());
    (status, serde_json::from_str(&payload).unwrap_or(Value::String(payload)))
}

/// One request with `body` as it is; the status, the response's head and its body.
pub fn raw_request(addr: SocketAddr, method: &str, path: &str, body: &str) -> (u16, String, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let status: u16 = text.split(' ').nth(1).unwrap().parse().unwrap();
    let (head, payload) = text.split_once("\r\n\r\n").unwrap();
    (status, head.to_string(), payload.to_string())
}
