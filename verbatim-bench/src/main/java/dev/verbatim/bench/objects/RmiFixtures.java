package dev.verbatim.bench.objects;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.rmi.NoSuchObjectException;
import java.rmi.Remote;
import java.rmi.RemoteException;
import java.rmi.server.RMIServerSocketFactory;
import java.rmi.server.UnicastRemoteObject;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Java RMI's twins of the suite's shared objects ({@code rmi}): a probe, list elements (the serial walk),
 * and a factory per process that constructs elements there, each a {@link UnicastRemoteObject} on
 * 127.0.0.1 (default client sockets: TCP_NODELAY, a connection reused per calling thread). No registry:
 * a process publishes its factory's stub, serialized ({@link #encode}), and the others read it
 * ({@link #decode}).
 *
 * <p>A stub of an object of the same process stays a stub in RMI (a call through it goes over loopback
 * TCP): the factory therefore links an element to the next one by the object itself when that one lives
 * in the same process (as a sensible RMI program would), so only the links between processes are RMI
 * calls, as in the objects list.
 */
public final class RmiFixtures {
    private RmiFixtures() {}

    /** The JVM flags of an RMI process: stubs name 127.0.0.1; the distributed GC's forced collections an hour apart. */
    public static final List<String> FLAGS = List.of("-Djava.rmi.server.hostname=127.0.0.1",
            "-Dsun.rmi.dgc.client.gcInterval=3600000", "-Dsun.rmi.dgc.server.gcInterval=3600000");

    public interface RmiProbe extends Remote {
        void nullCall() throws RemoteException;

        void put(RmiProbe p) throws RemoteException;
    }

    public interface RmiElem extends Remote {
        long serial(long w) throws RemoteException;
    }

    /** Constructs elements in its process: element {@code index} of list {@code list}, linked to {@code next}. */
    public interface RmiFactory extends Remote {
        /**
         * A new element of value {@code index}; its next element is {@code next}, or, when {@code nextHere},
         * the element {@code index + 1} of the same list this factory made (the object, not a stub).
         */
        RmiElem create(String list, int index, RmiElem next, boolean nextHere) throws RemoteException;

        RmiProbe probe() throws RemoteException;
    }

    static final class ProbeImpl implements RmiProbe {
        volatile RmiProbe stored;

        @Override
        public void nullCall() {
        }

        @Override
        public void put(RmiProbe p) {
            stored = p;
        }
    }

    static final class ElementImpl implements RmiElem {
        private final long value;
        private final RmiElem next;

        ElementImpl(long value, RmiElem next) {
            this.value = value;
            this.next = next;
        }

        @Override
        public long serial(long w) throws RemoteException {
            SharedFixtures.Work.spin(w);
            return next == null ? value : value + next.serial(w);
        }
    }

    /** A process's factory: keeps every element it made (exported, so reachable for the run). */
    static final class Factory implements RmiFactory {
        private final Map<String, ElementImpl> made = new ConcurrentHashMap<>();
        private final ProbeImpl probe = new ProbeImpl();
        private final RmiProbe probeStub;

        Factory() throws RemoteException {
            probeStub = (RmiProbe) export(probe);
        }

        @Override
        public RmiElem create(String list, int index, RmiElem next, boolean nextHere) throws RemoteException {
            RmiElem n = nextHere ? made.get(list + "/" + (index + 1)) : next;
            if (nextHere && n == null) {
                throw new IllegalStateException("no element " + (index + 1) + " of " + list + " here");
            }
            ElementImpl e = new ElementImpl(index, n);
            made.put(list + "/" + index, e);
            return (RmiElem) export(e);
        }

        /** The element {@code index} of {@code list} made here (the object itself), or null. */
        RmiElem local(String list, int index) {
            return made.get(list + "/" + index);
        }

        @Override
        public RmiProbe probe() {
            return probeStub;
        }

        void close() {
            for (ElementImpl e : made.values()) {
                unexport(e);
            }
            unexport(probe);
            unexport(this);
        }
    }

    /** Server sockets on 127.0.0.1 only (a record: equal factories share a port, as RMI wants). */
    record Loopback() implements RMIServerSocketFactory {
        @Override
        public ServerSocket createServerSocket(int port) throws IOException {
            return new ServerSocket(port, 200, InetAddress.getLoopbackAddress());
        }
    }

    private static final Loopback LOOPBACK = new Loopback();

    /** Exports {@code r} on an anonymous loopback port; its stub. */
    static Remote export(Remote r) throws RemoteException {
        return UnicastRemoteObject.exportObject(r, 0, null, LOOPBACK);
    }

    static void unexport(Remote r) {
        try {
            UnicastRemoteObject.unexportObject(r, true);
        } catch (NoSuchObjectException e) {
            // not exported
        }
    }

    /** A stub as a word for a session property (serialized, URL-safe base64 without padding). */
    static String encode(Remote stub) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(b)) {
            out.writeObject(stub);
        }
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b.toByteArray());
    }

    /** The stub {@link #encode} wrote. */
    static <T extends Remote> T decode(String word, Class<T> type) throws IOException, ClassNotFoundException {
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(Base64.getUrlDecoder().decode(word)))) {
            return type.cast(in.readObject());
        }
    }
}
