package dev.verbatim.rpc.internal;

import dev.verbatim.rpc.Remote;

/** Interfaces and exceptions the unit tests of the endpoint's parts use. */
public final class Parts {
    private Parts() {}

    public interface Counter extends Remote {
        int add(int x);
    }

    /** {@link Counter}'s method, asynchronous (the same method on the wire). */
    public interface AsyncCounter extends Remote {
        java.util.concurrent.CompletableFuture<Integer> add(int x);
    }

    /** A server that calls back (a nested call in the caller's chain) and one that answers plainly. */
    public interface Service extends Remote {
        int callBack(Callback cb, int x);

        int echo(int x);
    }

    public interface Callback extends Remote {
        int run(int x);
    }

    public interface Named extends Remote {
        String name();
    }

    /** A checked exception an interface declares. */
    public static class Declared extends Exception {
        private static final long serialVersionUID = 1L;

        public Declared(String message) {
            super(message);
        }

        public Declared(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** A subclass of {@link Declared} the caller does not know. */
    public static class Special extends Declared {
        private static final long serialVersionUID = 1L;

        public Special(String message) {
            super(message);
        }

        public Special(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** An unchecked exception nobody declares. */
    public static class Undeclared extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public Undeclared(String message) {
            super(message);
        }
    }

    public interface Files {
        void open(String path) throws Declared;

        int plain();
    }
}
