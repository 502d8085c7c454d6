package dev.verbatim.rpc;

/**
 * Marks an interface whose implementations travel by reference: passing one as an argument or
 * result exports it on the connection, and the other side receives a proxy that calls back to it
 * (J-RPC §3.2). A proxy that comes back to the process that exported the object arrives as the
 * original object. The binding is reference-counted and released when the receiving proxy becomes
 * unreachable or is closed with {@link Node#release(Object)}.
 */
public interface Remote {
}
