/**
 * J-RPC over Verbatim connections: a process exports objects under names, each as exactly one interface,
 * and others look them up and call them through generated proxies, over {@code shm:} or {@code tcp://}.
 * The protocol is specified in {@code docs/rpc.md}.
 *
 * <h2>Entry points</h2>
 * <ul>
 *   <li>{@link dev.verbatim.rpc.Node}: {@code listen} or {@code create} a node, {@code export} an object
 *       (with {@link dev.verbatim.rpc.ExportOptions}), {@code lookup} a proxy, {@code keep} a view or segment
 *       argument past its call (a {@link dev.verbatim.rpc.Kept}).</li>
 *   <li>{@link dev.verbatim.rpc.Remote}: marks interfaces passed by reference.</li>
 *   <li>{@link dev.verbatim.rpc.RemoteException} (a failure of the distribution, with its reason) and
 *       {@link dev.verbatim.rpc.ServerException} (an implementation's exception the caller may not
 *       recreate).</li>
 * </ul>
 *
 * <h2>Invariants</h2>
 * <ul>
 *   <li><b>Semantics follow the signature.</b> Primitives, strings, enums, records, classes and arrays go
 *       by copy; accessor-interface parameters arrive as zero-copy views and {@code MemorySegment}s as
 *       zero-copy slices, valid during the call unless kept; {@code Remote} interfaces go by reference,
 *       reference-counted. The implementation's exceptions are rethrown at the caller.</li>
 *   <li><b>No class names on the wire.</b> Only types named by the interface's signatures (and their
 *       permitted subtypes) are ever instantiated on receipt: no gadget chains.</li>
 *   <li><b>Versioning by inheritance.</b> A proxy of an interface keeps working against an export of an
 *       interface that extends it.</li>
 *   <li><b>Failures are bounded.</b> Calls time out, a dead peer fails its calls, and too many outstanding
 *       calls are refused: each is a {@code RemoteException} whose reason says which, and a peer's malformed
 *       message closes its connection.</li>
 * </ul>
 * Implementation classes live in {@code dev.verbatim.rpc.internal}, which is not exported.
 */
package dev.verbatim.rpc;
