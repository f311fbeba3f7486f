# export_fixture.sh — the run test_export_otf2.sh and test_export_perfetto.sh export (source it
# after lib.sh): 3 MPI ranks of tests/integration/mpi_phases.c under libmwprobe, recorded on the
# simulated cluster (sim:cluster: channels N1..N3 on hosts N1..N3, a switch and ch5 of no host),
# then made hostile by hand: names with quotes, a newline, a comma, a backslash and an invalid
# UTF-8 byte; a phase that overlaps another without nesting (a second lane), an instant, GPU
# work, and a window missing on every channel (a gap: two stretches of windows). And what `mw export --format csv` and the store say of it, for export_check.py.

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
CHECK=$(pwd)/tests/integration/export_check.py

# make_export_run R: records the run into R and edits it; 0 or 1.
make_export_run() {
  local r=$1 prog=$TMP/mpi_phases
  mpicc -O1 -fopenmp -Icollector/probe tests/integration/mpi_phases.c -L"$BUILD/lib" -lmwprobe \
    -Wl,-rpath,"$(pwd)/$BUILD/lib" -o "$prog" || { echo "cannot build the test program"; return 1; }
  "$MW" record -q -o "$r" --meter sim:cluster -- mpirun --oversubscribe -np 3 "$prog" \
    >"$TMP/record.out" 2>&1 || { echo "mw record failed:"; cat "$TMP/record.out"; return 1; }
  sqlite3 "$r/trace.db" "
    UPDATE channels SET name = 'N1 \"quoted\", first' || char(10) || 'second \\ line' WHERE channel = 1;
    UPDATE phases SET name = 'com\"pute' || char(10) || ',x\\y' WHERE name = 'compute' AND rank = 0;
    UPDATE phases SET name = 'bad' || cast(x'ff' AS text) || 'utf' WHERE name = 'rest' AND rank = 2;
    UPDATE phases SET host = 'h\"ost' || char(10) || '2' WHERE rank = 1;
    UPDATE channels SET host = 'h\"ost' || char(10) || '2' WHERE channel = 2;
    INSERT INTO phases (rank, host, thread, kind, name, start_ns, end_ns, bytes, pid, peer)
      SELECT rank, host, thread, 'user', 'overlap', (start_ns + end_ns) / 2, end_ns + 20000000, 0, pid, -1
      FROM phases WHERE rank = 0 AND kind = 'user' AND name LIKE 'com%';
    INSERT INTO phases (rank, host, thread, kind, name, start_ns, end_ns, bytes, pid, peer)
      SELECT rank, host, thread, 'mark', 'tick', start_ns + 1000, start_ns + 1000, 0, pid, -1
      FROM phases WHERE rank = 0 AND kind = 'user' AND name LIKE 'com%';
    INSERT INTO phases (rank, host, thread, kind, name, start_ns, end_ns, bytes, pid, peer)
      SELECT rank, host, thread, 'gpu', 'h2d', start_ns, end_ns, 4096, pid, -1
      FROM phases WHERE rank = 1 AND name = 'compute';
    DELETE FROM windows WHERE seq = (SELECT min(seq) + 2 FROM windows);" || return 1
}

# export_truth R DIR: what the CSV and the store say, into DIR/{phases,samples}.csv,
# DIR/meta.json, DIR/channels.json, DIR/p2p.json.
export_truth() {
  local r=$1 d=$2
  "$MW" export "$r" --format csv --what phases -o "$d/phases.csv" &&
    "$MW" export "$r" --format csv -o "$d/samples.csv" &&
    "$MW" export "$r" --format json --what meta -o "$d/meta.json" &&
    sqlite3 -json -readonly "$r/trace.db" "SELECT name, host FROM channels ORDER BY channel" >"$d/channels.json" &&
    sqlite3 -json -readonly "$r/trace.db" "SELECT rank, name, peer, bytes FROM phases
      WHERE name IN ('MPI_Send', 'MPI_Recv') AND peer >= 0" >"$d/p2p.json"
}
