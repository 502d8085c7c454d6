/**
 * Distributed objects on J-RPC (docs/objects.md): a set of processes, each a {@link dev.verbatim.objects.Base},
 * becomes one object space.
 *
 * <h2>Entry points</h2>
 * <ul>
 *   <li>{@link dev.verbatim.objects.Base}: {@code listen}, {@code allow} classes to be constructed,
 *       {@code base(address)} for another base, {@code bind}/{@code lookup} a first reference, {@code isRemote},
 *       {@code home}, {@code cloneOn}, {@code release}.</li>
 *   <li>{@link dev.verbatim.objects.RemoteBase}: {@code create} an object there, {@code call} a static method there.</li>
 *   <li>{@link dev.verbatim.objects.Shared}: marks the interfaces whose objects cross by reference.</li>
 * </ul>
 *
 * <h2>Invariants</h2>
 * <ul>
 *   <li><b>Identity.</b> One proxy per object per base: references to one object are {@code ==}; one that
 *       comes home is the original object.</li>
 *   <li><b>Forwarding without the owner.</b> Passing a reference to a third base sends nothing to the owner.</li>
 *   <li><b>Weighted reference counting.</b> An owner keeps an object while other bases may hold it, and forgets
 *       it when all weight is back. Distributed cycles are not collected.</li>
 *   <li><b>No class from a message is instantiated</b> unless the base allowed it by {@code Class} object.</li>
 *   <li><b>Delegate threads across bases.</b> A chain that comes back runs on the thread that waits in it.</li>
 * </ul>
 */
package dev.verbatim.objects;
