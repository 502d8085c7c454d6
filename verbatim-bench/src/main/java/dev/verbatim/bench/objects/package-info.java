/**
 * The objects suite, {@code ./verbatim bench objects [--quick] [--json] [--plot PATH]} (issue 15 §4, paper
 * 003 §5): distributed objects against a plain RPC call and Java RMI, and paper 003's distributed list,
 * every base a process of its own (see {@link dev.verbatim.bench.objects.ObjectsBench}).
 *
 * <h2>Pieces</h2>
 * <ul>
 *   <li>{@link dev.verbatim.bench.objects.ObjectsCase}: the cases, their contenders and results;
 *       {@link dev.verbatim.bench.objects.Layout} and {@link dev.verbatim.bench.objects.Traversal}: the list's
 *       layouts and walks as the paper defines them.</li>
 *   <li>{@link dev.verbatim.bench.objects.SharedFixtures}: the shared objects (probe, list elements and their
 *       walks); {@link dev.verbatim.bench.objects.RmiFixtures}: Java RMI's twins.</li>
 *   <li>{@code ObjectsBench}: the run (four processes, turns, two phases); {@code ObjectsPeer}: the processes'
 *       main; {@code BaseProcess}: what a process hosts; {@code BaseZeroCalls}: the calls base 0 makes;
 *       {@code ObjectsReport}: tables, JSON, targets; {@code ObjectsPlot}: the list figure.</li>
 * </ul>
 * The harness ({@link dev.verbatim.bench.harness}) does the processes ({@code ChildProcess}, {@code ChildMain}),
 * the turns ({@code Turns}, {@code CallLoop}), the histograms, the summaries and the targets.
 */
package dev.verbatim.bench.objects;
