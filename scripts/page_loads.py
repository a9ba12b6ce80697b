"""Whole page loads of `junqi serve` by many viewers at once (standard
library only): each viewer, on its own keep-alive connection, loads the
page, its script and styles, the board, the dataset list and the game
list, then opens a game drawn at random, again and again. Prints the
page loads' count and time percentiles (the game's request included).

    python3 scripts/page_loads.py http://127.0.0.1:8080 DATASET GAMES [VIEWERS] [SECONDS]
"""

import http.client
import random
import sys
import threading
import time
import urllib.parse


def viewer(host, port, dataset, games, until, times, errors):
    conn = http.client.HTTPConnection(host, port, timeout=30)
    d = urllib.parse.quote(dataset)
    page = ["/", "/app.js", "/style.css", "/api/board", "/api/datasets", f"/api/games?d={d}"]
    rng = random.Random()
    while time.monotonic() < until:
        start = time.monotonic()
        for path in page + [f"/api/game?d={d}&id={rng.randrange(games)}"]:
            conn.request("GET", path)
            response = conn.getresponse()
            response.read()
            if response.status != 200:
                errors.append(f"{path}: {response.status}")
        times.append(time.monotonic() - start)
    conn.close()


def main():
    url, dataset, games = sys.argv[1], sys.argv[2], int(sys.argv[3])
    viewers = int(sys.argv[4]) if len(sys.argv) > 4 else 50
    seconds = float(sys.argv[5]) if len(sys.argv) > 5 else 20
    parts = urllib.parse.urlsplit(url)
    until = time.monotonic() + seconds
    times, errors = [], []
    threads = [threading.Thread(target=viewer, args=(parts.hostname, parts.port, dataset, games, until, times, errors))
               for _ in range(viewers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    times.sort()
    pct = lambda q: 1000 * times[min(len(times) - 1, int(q * len(times)))]
    print(f"{viewers} viewers, {seconds:.0f} s: {len(times)} page loads ({len(times) / seconds:.1f}/s), "
          f"p50 {pct(0.5):.0f} ms, p90 {pct(0.9):.0f} ms, p99 {pct(0.99):.0f} ms, max {1000 * times[-1]:.0f} ms; "
          f"{len(errors)} errors")
    if errors:
        print("\n".join(errors[:10]))
        sys.exit(1)


if __name__ == "__main__":
    main()
