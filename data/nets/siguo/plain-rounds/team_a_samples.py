# team_a_samples.py DST SRC...: the samples of team A's seats (armies 0 and 2
# in even games, 1 and 3 in odd ones) of several `junqi selfplay --siguo` runs,
# as one dataset for `junqi train --data DST`: game ids shifted run by run,
# the shards' footers (`junqi.first_game`, `junqi.shard`) to match, the
# run's game count summed. No checksum records are written, so run.json drops
# `checksums`. Needs pyarrow. (How the plain-policy rounds of README.md made
# their training sets; `selfplay --siguo` has no option for it yet.)
import pyarrow.parquet as pq, pyarrow as pa, pyarrow.compute as pc, glob, os, sys, json
dst, srcs = sys.argv[1], sys.argv[2:]
os.makedirs(dst + '/samples', exist_ok=True)
offset = shard = kept = 0
for src in srcs:
    games = json.load(open(src + '/run.json'))['config']['games']
    for f in sorted(glob.glob(src + '/samples/*.parquet')):
        t = pq.read_table(f)
        meta = {k: v for k, v in pq.ParquetFile(f).metadata.metadata.items() if k != b'ARROW:schema'}
        g = pc.cast(t['game_id'], pa.int64()); s = pc.cast(t['seat'], pa.int64())
        t = t.filter(pc.equal(pc.bit_wise_and(g, 1), pc.bit_wise_and(s, 1)))
        t = t.set_column(0, 'game_id', pc.add(t['game_id'], pa.scalar(offset, pa.uint64())))
        meta[b'junqi.first_game'] = str(int(meta[b'junqi.first_game']) + offset).encode()
        meta[b'junqi.shard'] = str(shard).encode()
        pq.write_table(t.replace_schema_metadata(meta), f'{dst}/samples/shard-{shard:06d}.parquet', compression='zstd')
        shard += 1; kept += t.num_rows
    offset += games
r = json.load(open(srcs[0] + '/run.json')); r.pop('checksums', None); r['config']['games'] = offset
json.dump(r, open(dst + '/run.json', 'w'), indent=2)
print(f'{kept} samples of {offset} games in {shard} shards')
