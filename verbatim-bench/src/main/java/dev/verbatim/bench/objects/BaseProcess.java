package dev.verbatim.bench.objects;

import dev.verbatim.bench.harness.Session;
import dev.verbatim.bench.objects.SharedFixtures.Element;
import dev.verbatim.bench.objects.SharedFixtures.NullService;
import dev.verbatim.bench.objects.SharedFixtures.ProbeImpl;
import dev.verbatim.objects.Base;
import dev.verbatim.objects.BaseOptions;
import dev.verbatim.rpc.Node;
import dev.verbatim.transport.ConnectionOptions;

import java.rmi.RemoteException;
import java.time.Duration;

/**
 * Everything one process of the objects suite hosts, for the three contenders: an objects base over shm
 * and another over tcp (two bases: a base keeps one connection per other base, so the tcp case needs
 * bases that only know tcp; and a third over shm for a probe), each binding a {@link ProbeImpl} as {@code probe} and allowing
 * {@link Element}s to be constructed; a plain RPC {@link Node} over shm and tcp exporting a probe as
 * {@link NullService} {@code null} and the pongs of the shm floor's turns ({@link FloorTurns.FloorService} {@code floor});
 * and a Java RMI {@link RmiFixtures.Factory}. It publishes the
 * addresses (keys {@code shm}, {@code tcp}, {@code probe}, {@code rpcShm}, {@code rpcTcp}) and the factory's stub
 * ({@code rmi}). Every contender's sides wait as Verbatim's shm nodes do in the rpc suite: a waiting
 * side spins {@value #SPIN_NANOS} ns, then parks; RMI blocks in the kernel.
 */
final class BaseProcess implements AutoCloseable {
    /** How long a waiting Verbatim side spins before it parks (the rpc suite's shm setting, here for shm and tcp). */
    static final long SPIN_NANOS = 1_000_000;
    /** Calls of the deepest walk nest a whole list deep: a long call timeout. */
    static final Duration TIMEOUT = Duration.ofSeconds(60);
    /** The call timeout of the probe bases. */
    static final Duration PROBE_TIMEOUT = Duration.ofSeconds(3);

    final Base shm;
    final Base tcp;
    /** A base of its own for {@link BaseZeroCalls#comeBackProbe}, with a short call timeout: a probe that hangs wedges only it. */
    final Base probe;
    final Node rpc;
    final RmiFixtures.Factory rmi;

    /** The connection options of every Verbatim side of the suite. */
    static ConnectionOptions connection() {
        return Node.DEFAULT_OPTIONS.withSpin(SPIN_NANOS, false);
    }

    /** The base options: the default grant, calls inline on the dispatcher, {@link #TIMEOUT}, {@link #connection()}. */
    static BaseOptions baseOptions() {
        return BaseOptions.DEFAULT.withVirtualThreads(false).withTimeout(TIMEOUT).withConnection(connection());
    }

    BaseProcess(Session s, int index) throws RemoteException {
        System.setProperty("verbatim.shm.dir", s.dir().toString());
        shm = Base.listen(baseOptions(), "shm:" + s.name() + "-b" + index);
        tcp = Base.listen(baseOptions(), "tcp://127.0.0.1:0");
        probe = Base.listen(baseOptions().withTimeout(PROBE_TIMEOUT), "shm:" + s.name() + "-p" + index);
        for (Base b : new Base[] {shm, tcp, probe}) {
            b.allow(Element.class);
            b.bind("probe", new ProbeImpl());
        }
        rpc = Node.listen(connection(), "shm:" + s.name() + "-r" + index, "tcp://127.0.0.1:0");
        rpc.export("null", NullService.class, new ProbeImpl());
        rpc.export("floor", FloorTurns.FloorService.class, new FloorTurns.Pongs(s));
        rmi = new RmiFixtures.Factory();
    }

    /** Publishes what base 0 needs to reach this process. */
    void publish(Session s) throws java.io.IOException {
        s.publish("shm", shm.addresses().getFirst());
        s.publish("tcp", tcp.addresses().getFirst());
        s.publish("probe", probe.addresses().getFirst());
        s.publish("rpcShm", rpc.addresses().get(0));
        s.publish("rpcTcp", rpc.addresses().get(1));
        s.publish("rmi", RmiFixtures.encode(RmiFixtures.export(rmi)));
    }

    @Override
    public void close() {
        rmi.close();
        rpc.close();
        probe.close();
        tcp.close();
        shm.close();
    }
}
