/**
 * Explicit buffers with safe lifetimes (Javia-II, jbufs): heap, off-heap and memory-mapped
 * memory behind one {@link dev.verbatim.buffer.Buffer} type, bounded
 * {@link dev.verbatim.buffer.BufferPool}s, and a {@link dev.verbatim.buffer.Registration} hook
 * for transports.
 *
 * <p>The invariant of the package: memory is reused or freed only once nothing can observe it,
 * either because its buffer was released (every view of it then throws
 * {@link java.lang.IllegalStateException}) or because the garbage collector proved no view
 * reachable. A view never reads another buffer's bytes and never crashes the JVM.
 *
 * <h2>Native access</h2>
 * Heap, off-heap and mapped buffers from {@link dev.verbatim.buffer.Buffers}, and heap pools, call
 * no restricted method: they need no {@code --enable-native-access}, print no JDK warning, and
 * work under {@code --illegal-native-access=deny}. The one exception is an off-heap
 * {@link dev.verbatim.buffer.BufferPool}, which re-scopes reused memory to each lease with
 * {@code MemorySegment.reinterpret}: applications that create one grant native access to this
 * module, {@code --enable-native-access=dev.verbatim.buffer} on the module path or
 * {@code --enable-native-access=ALL-UNNAMED} on the class path. Otherwise, in Verbatim only the
 * transport needs native access, for the shared-memory transport's futex downcall:
 * {@code --enable-native-access=dev.verbatim.transport} on the module path, or
 * {@code --enable-native-access=ALL-UNNAMED} on the class path (which covers every module there).
 */
package dev.verbatim.buffer;
