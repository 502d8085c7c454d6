package dev.verbatim.rpc.internal;

import dev.verbatim.rpc.RemoteException;
import dev.verbatim.rpc.RemoteException.Reason;
import dev.verbatim.rpc.ServerException;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

import static dev.verbatim.rpc.internal.RpcDescriptor.HEADER;
import static dev.verbatim.rpc.internal.RpcDescriptor.T_BYTES;
import static dev.verbatim.rpc.internal.RpcDescriptor.T_NULL;
import static dev.verbatim.rpc.internal.RpcDescriptor.VALUE_HEADER;
import static dev.verbatim.rpc.internal.RpcDescriptor.checkValue;
import static dev.verbatim.rpc.internal.RpcDescriptor.span;

/**
 * Exceptions across the wire (docs/rpc.md §3), both ways. The callee {@linkplain #describe describes}
 * what its implementation threw as a {@code THROWN} body: for each exception of the cause chain (at
 * most {@link #MAX_CHAIN}), its class name followed by its superclasses' (comma-separated) and its
 * message. The caller {@linkplain #rebuild rebuilds} it: the class itself, or failing that its nearest
 * superclass below {@code Exception}/{@code RuntimeException} (the real class then named in the
 * message), if the method declares it or it is one of {@link #JDK_UNCHECKED}; anything else is a
 * {@link ServerException} naming the remote class. No class is ever loaded by a name from a message.
 * What the callee discloses of an exception its method does not declare is its export's choice
 * ({@link #describe}).
 *
 * <p>Stateless; thread-safe.
 */
final class ExceptionRebuilder {
    private ExceptionRebuilder() {}

    /** The most exceptions of one cause chain that are sent (32 values). */
    static final int MAX_CHAIN = 16;
    /** JDK runtime exceptions a caller recreates although the method does not declare them. */
    static final Set<String> JDK_UNCHECKED = Set.of(
            "java.lang.IllegalArgumentException", "java.lang.IllegalStateException", "java.lang.NullPointerException",
            "java.lang.UnsupportedOperationException", "java.lang.ArithmeticException", "java.lang.IndexOutOfBoundsException",
            "java.lang.ArrayIndexOutOfBoundsException", "java.lang.ClassCastException", "java.lang.SecurityException",
            "java.lang.RuntimeException", "java.util.NoSuchElementException", "java.util.ConcurrentModificationException");

    /**
     * A {@code THROWN} body: two values per exception (its names, its message or null), and their
     * bytes ({@code body}). The header's count of a {@code THROWN} is the number of exceptions, not of
     * values.
     */
    record Described(List<MemorySegment> parts, long body) {
        /** The number of exceptions (the header's count). */
        int count() {
            return parts.size() / 2;
        }
    }

    /**
     * What a caller learns of an exception its method does not declare when the export keeps the details:
     * the message of the exception sent in its stead.
     */
    static final String WITHHELD = "an exception the method does not declare (the export keeps its details:"
            + " ExportOptions.withErrorDetails)";

    /**
     * The names and messages of {@code t}'s cause chain, thrown by a call of {@code mi}, as a {@code THROWN}
     * body. With {@code details}, every exception of the chain as it is. Without, only what the method's
     * declared exceptions need: the chain is cut at the first exception that is not of a declared type (or a
     * subclass of one); if that is {@code t} itself, one exception stands for it, of the nearest JDK
     * runtime class of {@link #JDK_UNCHECKED} it is (else {@link ServerException#UNDISCLOSED}), with the
     * message {@link #WITHHELD}: no class name of the implementation, no message, no cause.
     */
    static Described describe(Throwable t, RemoteInterface.MethodInfo mi, boolean details) {
        List<MemorySegment> parts = new ArrayList<>();
        long body = 0;
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable c = t; c != null && seen.add(c) && parts.size() < 2 * MAX_CHAIN; c = c.getCause()) {
            String names;
            String msg;
            if (details || declared(c.getClass(), mi)) {
                StringBuilder chain = new StringBuilder(c.getClass().getName()); // and its superclasses, so a
                for (Class<?> k = c.getClass().getSuperclass(); k != null && k != Throwable.class
                        && chain.length() < 2000; k = k.getSuperclass()) { // caller can rebuild the nearest declared one
                    chain.append(',').append(k.getName());
                }
                names = chain.toString();
                msg = c.getMessage();
            } else if (c == t) {
                names = undisclosed(c.getClass());
                msg = WITHHELD;
            } else {
                break; // an undeclared cause: the implementation's own business
            }
            byte[] n = names.getBytes(StandardCharsets.UTF_8);
            byte[] mb = msg == null ? null : truncate(msg).getBytes(StandardCharsets.UTF_8);
            parts.add(MemorySegment.ofArray(n));
            parts.add(mb == null ? null : MemorySegment.ofArray(mb));
            body += span(n.length) + span(mb == null ? 0 : mb.length);
        }
        return new Described(parts, body);
    }

    /**
     * Whether {@code mi} declares {@code c} or a superclass of it, {@code Exception}, {@code RuntimeException}
     * and what is above them aside (as the caller rebuilds: too general to stand for a class).
     */
    private static boolean declared(Class<?> c, RemoteInterface.MethodInfo mi) {
        if (mi == null) {
            return false;
        }
        for (Class<?> d : mi.method.getExceptionTypes()) {
            if (d == c || d.isAssignableFrom(c) && d != Exception.class && d != RuntimeException.class
                    && d != Throwable.class) {
                return true;
            }
        }
        return false;
    }

    /** The name an undeclared exception of class {@code c} is sent under when its details are kept. */
    private static String undisclosed(Class<?> c) {
        for (Class<?> k = c; k != null && k != Throwable.class; k = k.getSuperclass()) {
            if (k != c && k == RuntimeException.class) {
                break; // too general to stand for the real class
            }
            if (JDK_UNCHECKED.contains(k.getName())) {
                return k.getName();
            }
        }
        return ServerException.UNDISCLOSED;
    }

    /** Writes a described body's values at {@code at} (a null part as {@code NULL}). */
    static void write(Described d, MemorySegment s, long at) {
        for (MemorySegment p : d.parts) {
            if (p == null) {
                RpcDescriptor.putValueHeader(s, at, T_NULL, 0);
                at += VALUE_HEADER;
            } else {
                at = CallEncoder.putBytes(s, at, p);
            }
        }
    }

    /**
     * Rebuilds a thrown exception from a {@code THROWN} message at the caller: a type declared by the
     * method's signature ({@code mi}, null for none), or a common JDK runtime exception, is recreated with
     * its message; anything else is a {@link ServerException} naming the remote class. Causes are chained
     * alike.
     *
     * @throws IllegalArgumentException if the message is malformed
     */
    static Throwable rebuild(MemorySegment m, RemoteInterface.MethodInfo mi) {
        int count = m.get(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED, RpcDescriptor.COUNT); // exceptions
        String[] names = new String[count];
        String[] messages = new String[names.length];
        long at = HEADER;
        for (int i = 0; i < names.length; i++) {
            names[i] = ValueDecoder.string(m, at);
            at = checkValue(m, at);
            messages[i] = ValueDecoder.string(m, at);
            at = checkValue(m, at);
        }
        Throwable cause = null;
        for (int i = names.length - 1; i >= 0; i--) {
            Throwable t = recreate(names[i], messages[i], mi);
            if (cause != null) {
                try {
                    t.initCause(cause);
                } catch (IllegalStateException ignored) {
                    // a constructor already set one
                }
            }
            cause = t;
        }
        return cause == null ? new RemoteException(Reason.PROTOCOL, "an empty exception reply") : cause;
    }

    private static Throwable recreate(String names, String message, RemoteInterface.MethodInfo mi) {
        String[] chain = names == null ? new String[] {"?"} : names.split(",");
        String name = chain[0];
        Class<?> type = null;
        for (int c = 0; c < chain.length; c++) { // the class itself, else its nearest superclass the caller may create
            String candidate = chain[c];
            if (c > 0 && (candidate.equals("java.lang.RuntimeException") || candidate.equals("java.lang.Exception"))) {
                break; // too general to stand for the real class: a ServerException names it instead
            }
            if (mi != null) {
                for (Class<?> declared : mi.method.getExceptionTypes()) {
                    if (declared.getName().equals(candidate)) {
                        type = declared;
                    }
                }
            }
            if (type == null && JDK_UNCHECKED.contains(candidate)) {
                try {
                    type = Class.forName(candidate, false, ClassLoader.getPlatformClassLoader());
                } catch (ClassNotFoundException e) {
                    type = null;
                }
            }
            if (type != null) {
                if (c > 0) {
                    message = name + (message == null ? "" : ": " + message); // the real class, in words
                }
                break;
            }
        }
        if (type != null && Throwable.class.isAssignableFrom(type)) {
            try {
                return (Throwable) type.getConstructor(String.class).newInstance(message);
            } catch (ReflectiveOperationException | RuntimeException e) {
                try {
                    return (Throwable) type.getConstructor().newInstance();
                } catch (ReflectiveOperationException | RuntimeException e2) {
                    // fall through
                }
            }
        }
        return new ServerException(name, message);
    }

    /** A peer's string as echoed in a reply: bounded, so a reply always fits. */
    static String clip(String s) {
        return s == null ? "null" : s.length() > 200 ? s.substring(0, 200) + "..." : s;
    }

    private static String truncate(String s) {
        return s.length() > 8192 ? s.substring(0, 8192) + "..." : s;
    }
}
