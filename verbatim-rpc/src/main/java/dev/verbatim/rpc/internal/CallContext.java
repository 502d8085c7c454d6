package dev.verbatim.rpc.internal;

import java.lang.foreign.MemorySegment;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static dev.verbatim.rpc.internal.RpcDescriptor.HEADER;
import static dev.verbatim.rpc.internal.RpcDescriptor.VALUE_HEADER;
import static dev.verbatim.rpc.internal.RpcDescriptor.checkValue;
import static dev.verbatim.rpc.internal.RpcDescriptor.length;

/**
 * What a thread knows of the incoming calls it runs (docs/rpc.md §4 and §6): the innermost call's
 * <em>chain</em>, which the thread's own outgoing calls carry (so the peer runs their nested calls on
 * the thread waiting in that chain), and the <em>frames</em> of running calls with in-place arguments
 * (views and segments), which {@code Node.keep} finds with {@link #inPlace}.
 *
 * <p>One context per thread ({@link #current()}), confined to it; frames of asynchronous methods, whose
 * in-place arguments stay valid until their future completes, are also in a process-wide set any thread
 * may search.
 */
public final class CallContext {
    private static final ThreadLocal<CallContext> CONTEXT = ThreadLocal.withInitial(CallContext::new);
    /** Frames of asynchronous methods whose in-place arguments stay valid until their future completes. */
    private static final Set<Frame> ASYNC_FRAMES = ConcurrentHashMap.newKeySet();

    /** The innermost running call's chain (0: none): the thread's outgoing calls carry it. */
    long chain;
    /** The innermost running call with in-place arguments, or null. */
    Frame frame;
    /** Whether this is a virtual thread an endpoint started for a call (which a CANCEL may interrupt). */
    boolean callThread;
    /**
     * The endpoint this thread is the dispatcher of, or null: while a call it runs waits for a reply over
     * another connection, it still reads this one or hands the dispatcher's role on ({@link ReadLeader}).
     */
    Endpoint dispatching;
    /**
     * The endpoint the innermost running incoming call arrived over, or null: while the call waits for a
     * reply over another connection, its thread reads this one too, as a guest ({@link ReadLeader}): the
     * call's chain most likely comes back over it.
     */
    Endpoint arrivedOver;
    /** The innermost connection this thread reads as a guest while it waits, or null ({@link ReadLeader.Guest}). */
    ReadLeader.Guest guest;
    /** The waits of the chain this thread entered a nested wait in last, or null ({@link ChainDirectory#enter}: a hint). */
    ChainDirectory.Waits waits;
    /** How many replies this thread waits for, nested (a dispatcher then runs no unrelated call inline). */
    int waiting;

    private static final String PROPERTY = "verbatim.rpc.maxNesting";
    /**
     * From how many nested waits on a thread {@link #maxNesting} is asked ({@code Endpoint.call}, {@code Endpoint.help}):
     * 16, or the property's value if lower. Below it no limit applies, so a program whose chains stay shallow never
     * reads the JVM's stack size.
     */
    static final int CHECKED_FROM = Math.min(16, parsed(System.getProperty(PROPERTY), 16));
    private static volatile int maxNesting;

    /**
     * The most replies a thread may wait for, nested ({@link #waiting}): a synchronous call, or a join of a future,
     * beyond it fails with {@code TOO_DEEP} before it is sent (or read for). A chain that comes back runs on the
     * thread waiting in it, so each level holds that thread's stack: 2.8-5 KB of frames per level of a walk of two
     * bases (the JIT's frames and the interpreter's, the method's own included), and a stack that ran out threw a
     * {@link StackOverflowError} wherever the frame that overflowed was, in the middle of sending or reading a
     * message. {@code -Dverbatim.rpc.maxNesting=N} sets it; else 128 per MB of the JVM's thread stack size
     * ({@code -Xss}, {@code -XX:ThreadStackSize}, however given: 8 KB a level, room for the methods' frames too), at
     * least 16. A thread made with a stack size of its own is not seen. Read once, when a thread first waits
     * {@link #CHECKED_FROM} deep.
     *
     * @throws IllegalArgumentException if the property is not a positive number
     */
    static int maxNesting() {
        int m = maxNesting;
        if (m == 0) {
            String set = System.getProperty(PROPERTY);
            if (set != null) {
                m = parsed(set, 0);
                if (m < 1) {
                    throw new IllegalArgumentException("-D" + PROPERTY + " must be a positive number of nested calls: " + set);
                }
            } else {
                m = (int) Math.max(16, Math.min(1 << 20, stackKibibytes() / 8));
            }
            maxNesting = m;
        }
        return m;
    }

    /** {@code s} as a positive int, or {@code otherwise} (null, not a number, not positive). */
    private static int parsed(String s, int otherwise) {
        if (s == null) {
            return otherwise;
        }
        try {
            int n = Integer.parseInt(s.trim());
            return n > 0 ? n : otherwise;
        } catch (NumberFormatException e) {
            return otherwise;
        }
    }

    /** The JVM's thread stack size in KiB ({@code ThreadStackSize}); 1024 (the 64-bit default) if it cannot say. */
    static long stackKibibytes() {
        try {
            String v = java.lang.management.ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class)
                    .getVMOption("ThreadStackSize").getValue();
            long k = Long.parseLong(v);
            return k > 0 ? k : 1024; // (0: the system's default, not known here)
        } catch (RuntimeException e) { // (not HotSpot, or no such option)
            return 1024;
        }
    }

    private CallContext() {}

    /** The calling thread's context. */
    static CallContext current() {
        return CONTEXT.get();
    }

    /** A running call with view or segment arguments: where {@link #inPlace} finds their bytes. */
    static final class Frame {
        final MemorySegment message;
        final Object[] args;
        final RemoteInterface.MethodInfo method;
        final Frame outer;

        Frame(MemorySegment message, Object[] args, RemoteInterface.MethodInfo method, Frame outer) {
            this.message = message;
            this.args = args;
            this.method = method;
            this.outer = outer;
        }

        /** The bytes of {@code arg}, if it is one of this call's in-place arguments. */
        InPlace find(Object arg) {
            for (int i = 0; i < args.length; i++) {
                ValueKind k = method.params[i];
                if (args[i] != arg || k.tag() != ValueKind.Tag.VIEW && k.tag() != ValueKind.Tag.SEGMENT) {
                    continue;
                }
                if (k.tag() == ValueKind.Tag.SEGMENT) {
                    return new InPlace((MemorySegment) arg, null);
                }
                long at = HEADER;
                for (int j = 0; j < i; j++) {
                    at = checkValue(message, at);
                }
                return new InPlace(message.asSlice(at + VALUE_HEADER, length(message, at)), k.type());
            }
            return null;
        }
    }

    /** An asynchronous method's frame stays findable from any thread until its future completes. */
    static void addAsync(Frame f) {
        ASYNC_FRAMES.add(f);
    }

    static void removeAsync(Frame f) {
        ASYNC_FRAMES.remove(f);
    }

    /**
     * A view or segment argument of a call running now, as its bytes: what {@code Node.keep} copies.
     *
     * @param bytes the wire message of a view, or the segment itself (in place: valid only during the call)
     * @param view  the view interface, or null for a segment
     */
    public record InPlace(MemorySegment bytes, Class<?> view) {}

    /**
     * {@code arg} as an in-place argument of a call this thread runs (the innermost first), or of an
     * asynchronous method whose future has not completed; null if it is neither.
     */
    public static InPlace inPlace(Object arg) {
        for (Frame f = CONTEXT.get().frame; f != null; f = f.outer) {
            InPlace p = f.find(arg);
            if (p != null) {
                return p;
            }
        }
        for (Frame f : ASYNC_FRAMES) {
            InPlace p = f.find(arg);
            if (p != null) {
                return p;
            }
        }
        return null;
    }
}
