/**
 * The harness under every {@code verbatim bench} suite (wire, transport, rpc, objects, file): how figures are
 * measured, summarised and printed, so that each suite is only its bench class, its contenders, its
 * report and its plot.
 *
 * <h2>Measuring</h2>
 * <ul>
 *   <li>In one JVM: {@link dev.verbatim.bench.harness.BatchHarness} (calibrate, warm up until
 *       stable, median of timed batches) over a {@link dev.verbatim.bench.harness.Workload}, results
 *       into a {@link dev.verbatim.bench.harness.Blackhole} (wire, file).
 *   <li>In child processes (transport, rpc; wire's one JVM per library):
 *       {@link dev.verbatim.bench.harness.ChildProcess} (the parent's end: start, a {@code VB} line
 *       protocol, hard timeouts, nothing left running) and {@link dev.verbatim.bench.harness.ChildMain}
 *       (the child's end); a {@link dev.verbatim.bench.harness.Session} per contender in a
 *       {@link dev.verbatim.bench.harness.ScratchDir}; each {@link dev.verbatim.bench.harness.Contender}
 *       on a {@link dev.verbatim.bench.harness.Medium}, its two processes a
 *       {@link dev.verbatim.bench.harness.TurnSides}.
 *   <li>Taking turns: {@link dev.verbatim.bench.harness.Turns} (rotation, settle, pause of a
 *       spinning pong), a turn of timed calls {@link dev.verbatim.bench.harness.CallLoop} (the objects
 *       suite's), figures per turn in a {@link dev.verbatim.bench.harness.LatencyHistogram},
 *       the measuring thread's CPU share from {@link dev.verbatim.bench.harness.ThreadCpu}.
 * </ul>
 *
 * <h2>Reporting</h2>
 * <ul>
 *   <li>{@link dev.verbatim.bench.harness.Stats}: a figure is the median of its turns (or batches); a
 *       ratio of two contenders the median over rounds of the ratio within a round.
 *   <li>{@link dev.verbatim.bench.harness.Target}: a ratio, its bound and the verdict (PASS, MISS,
 *       n/a), the same in every suite's tables and JSON.
 *   <li>{@link dev.verbatim.bench.harness.Json}: every JSON line ({@code {"suite":..., ...}}, keys
 *       in order); {@link dev.verbatim.bench.harness.FloorCase} and
 *       {@link dev.verbatim.bench.harness.FloorTable}: the rows, tables and JSON of the suites
 *       measured against a floor; {@link dev.verbatim.bench.harness.ReportText}: the closing
 *       sections; {@link dev.verbatim.bench.harness.Host}: the machine; {@link dev.verbatim.bench.harness.Plots}:
 *       the PNG canvas.
 *   <li>{@link dev.verbatim.bench.harness.SuiteArgs}: {@code --quick --json --plot}, the contender
 *       selection, and the end of a run (report, plot, exit code 1 when a contender failed).
 * </ul>
 * Nothing here knows a suite's cases or contenders; the suites depend on the harness, never the
 * reverse, and on the {@code fixtures} package for the objects they send.
 */
package dev.verbatim.bench.harness;
