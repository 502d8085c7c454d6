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
 */
package dev.verbatim.buffer;
