# dagger_samples.py DST SRC:FILTER...: the samples of several four-player runs
# (`junqi selfplay --siguo` outputs, `junqi reanalyse` outputs) joined as one
# dataset for `junqi train --data DST`: game ids shifted run by run, the
# shards' footers (`junqi.first_game`, `junqi.shard`) to match. FILTER is
#   all    every row;
#   a      team A's rows (armies 0 and 2 in even games, 1 and 3 in odd ones);
#   a<Q    team A's rows whose quiet counter (bytes 4-7 of the siguo-code/1
#          code, little-endian) is below Q;
#   a>=Q   team A's rows whose quiet counter is at least Q.
# The DAgger round of README.md joins the plain net's own samples below quiet
# 12 with `junqi reanalyse --min-quiet 12` samples of the same games. No
# checksum records are written. Needs pyarrow.
import pyarrow.parquet as pq, pyarrow as pa, pyarrow.compute as pc, glob, os, sys, json


def keep(t, filt):
    if filt == 'all':
        return t
    g = pc.cast(t['game_id'], pa.int64())
    s = pc.cast(t['seat'], pa.int64())
    mask = pc.equal(pc.bit_wise_and(g, 1), pc.bit_wise_and(s, 1))
    if filt != 'a':
        quiet = pa.array([int.from_bytes(c[4:8], 'little') for c in t['code'].to_pylist()], pa.int64())
        if filt.startswith('a<'):
            mask = pc.and_(mask, pc.less(quiet, int(filt[2:])))
        elif filt.startswith('a>='):
            mask = pc.and_(mask, pc.greater_equal(quiet, int(filt[3:])))
        else:
            sys.exit(f'unknown filter `{filt}`: expected all, a, a<Q or a>=Q')
    return t.filter(mask)


dst, srcs = sys.argv[1], sys.argv[2:]
os.makedirs(dst + '/samples', exist_ok=True)
offset = shard = kept = 0
for spec in srcs:
    src, filt = spec.rsplit(':', 1)
    end = 0
    for f in sorted(glob.glob(src + '/samples/*.parquet')):
        t = pq.read_table(f)
        meta = {k: v for k, v in pq.ParquetFile(f).metadata.metadata.items() if k != b'ARROW:schema'}
        end = max(end, int(meta[b'junqi.first_game']) + int(meta[b'junqi.games']))
        t = keep(t, filt)
        t = t.set_column(0, 'game_id', pc.add(t['game_id'], pa.scalar(offset, pa.uint64())))
        meta[b'junqi.first_game'] = str(int(meta[b'junqi.first_game']) + offset).encode()
        meta[b'junqi.shard'] = str(shard).encode()
        pq.write_table(t.replace_schema_metadata(meta), f'{dst}/samples/shard-{shard:06d}.parquet', compression='zstd')
        shard += 1
        kept += t.num_rows
    # An even shift keeps each game's parity, so team A stays team A.
    offset += end + end % 2
json.dump({'joined': srcs, 'games': offset}, open(dst + '/run.json', 'w'), indent=2)
print(f'{kept} samples of {offset} games in {shard} shards')
