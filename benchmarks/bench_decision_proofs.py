"""Time every decision query: ``python benchmarks/bench_decision_proofs.py [--repeat N]``.

Prints, per query, its answer, the Z3 resource units it used and its wall time
(the median of ``--repeat`` runs, in milliseconds), then the time to enumerate
the Python table and the total. Wall time is printed here only; the proof
artifacts never record it.
"""

from __future__ import annotations

import argparse
import statistics
import time

from mcp_resume.proofs.decision.queries import decision_queries, run_query
from mcp_resume.proofs.decision.table import python_table
from mcp_resume.proofs.solving import DEFAULT_RLIMIT, DEFAULT_SEED


def _median_ms(action, repeat: int):
    times, value = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        value = action()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement, median reported (default 3)")
    parser.add_argument("--rlimit", type=int, default=DEFAULT_RLIMIT)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    args = parser.parse_args()

    table_ms, table = _median_ms(python_table, args.repeat)
    rows = []
    for query in decision_queries():
        ms, result = _median_ms(lambda query=query: run_query(query, table, args.rlimit, args.seed), args.repeat)
        rows.append((query.id, result.result, result.holds, result.rlimit_used, ms))

    width = max(len(r[0]) for r in rows)
    print(f"{'query':<{width}}  result  holds  rlimit_used  ms")
    for query_id, result, holds, used, ms in rows:
        print(f"{query_id:<{width}}  {result:<6}  {'yes' if holds else 'NO':<5}  {used if used is not None else '-':>11}  {ms:8.1f}")
    queries_ms = sum(r[4] for r in rows)
    print(f"\npython table (750 entries): {table_ms:.1f} ms")
    print(f"queries ({len(rows)}): {queries_ms:.1f} ms; total: {queries_ms + table_ms:.1f} ms (median of {args.repeat})")


if __name__ == "__main__":
    main()
