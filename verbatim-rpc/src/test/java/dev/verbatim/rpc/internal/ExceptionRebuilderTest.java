package dev.verbatim.rpc.internal;

import dev.verbatim.rpc.RemoteException;
import dev.verbatim.rpc.ServerException;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static dev.verbatim.rpc.internal.RpcDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

class ExceptionRebuilderTest {
    private static final RemoteInterface.MethodInfo OPEN = method("open");
    private static final RemoteInterface.MethodInfo PLAIN = method("plain");

    private static RemoteInterface.MethodInfo method(String name) {
        for (RemoteInterface.MethodInfo mi : RemoteInterface.of(Parts.Files.class).methods) {
            if (mi.method.getName().equals(name)) {
                return mi;
            }
        }
        throw new AssertionError(name);
    }

    /** {@code t} as the caller receives it: a THROWN message, rebuilt for {@code mi}. */
    private static Throwable across(Throwable t, RemoteInterface.MethodInfo mi) {
        ExceptionRebuilder.Described d = ExceptionRebuilder.describe(t);
        MemorySegment m = MemorySegment.ofArray(new byte[(int) (HEADER + d.body())]);
        putHeader(m, head(THROWN, 0, d.count(), 0), 42, 0, 0);
        ExceptionRebuilder.write(d, m, HEADER);
        return ExceptionRebuilder.rebuild(m, mi);
    }

    @Test
    void aDeclaredExceptionIsRebuiltAsItselfWithItsMessage() {
        Throwable t = across(new Parts.Declared("no such file"), OPEN);
        assertEquals(Parts.Declared.class, t.getClass());
        assertEquals("no such file", t.getMessage());
    }

    @Test
    void aListedJdkRuntimeExceptionIsRebuiltThoughUndeclared() {
        Throwable t = across(new IllegalStateException("not now"), PLAIN);
        assertEquals(IllegalStateException.class, t.getClass());
        assertEquals("not now", t.getMessage());
        assertEquals(NullPointerException.class, across(new NullPointerException(), PLAIN).getClass());
    }

    @Test
    void anUndeclaredExceptionIsAServerExceptionNamingTheRemoteClass() {
        Throwable t = across(new Parts.Undeclared("boom"), PLAIN);
        ServerException s = assertInstanceOf(ServerException.class, t);
        assertTrue(s.getMessage().contains(Parts.Undeclared.class.getName()), s.getMessage());
        assertTrue(s.getMessage().contains("boom"), s.getMessage());
        assertInstanceOf(ServerException.class, across(new Parts.Declared("declared elsewhere"), PLAIN),
                "an exception another method declares is not this method's");
    }

    @Test
    void anUnknownSubclassOfADeclaredExceptionIsRebuiltAsTheDeclaredOneNamingTheRealClass() {
        Throwable t = across(new Parts.Special("deep"), OPEN);
        assertEquals(Parts.Declared.class, t.getClass());
        assertEquals(Parts.Special.class.getName() + ": deep", t.getMessage());
    }

    @Test
    void aSubclassOfRuntimeExceptionIsNotRebuiltAsTheTooGeneralRuntimeException() {
        Throwable t = across(new Parts.Undeclared("x"), PLAIN);
        assertNotEquals(RuntimeException.class, t.getClass());
    }

    @Test
    void causesAreChainedAlike() {
        Throwable t = across(new Parts.Declared("outer"), OPEN);
        assertNull(t.getCause());
        Parts.Declared outer = new Parts.Declared("outer");
        outer.initCause(new IllegalArgumentException("middle", new Parts.Undeclared("inner")));
        Throwable r = across(outer, OPEN);
        assertEquals(Parts.Declared.class, r.getClass());
        assertEquals(IllegalArgumentException.class, r.getCause().getClass());
        assertEquals("middle", r.getCause().getMessage());
        assertInstanceOf(ServerException.class, r.getCause().getCause());
        assertNull(r.getCause().getCause().getCause());
    }

    @Test
    void atMostSixteenExceptionsOfACauseChainTravelAndACycleEnds() {
        Throwable t = new IllegalStateException("0");
        for (int i = 1; i < 40; i++) {
            t = new IllegalStateException(String.valueOf(i), t);
        }
        assertEquals(16, ExceptionRebuilder.describe(t).count());
        int depth = 0;
        for (Throwable c = across(t, PLAIN); c != null; c = c.getCause()) {
            depth++;
        }
        assertEquals(16, depth);
        IllegalStateException a = new IllegalStateException("a");
        IllegalStateException b = new IllegalStateException("b", a);
        a.initCause(b);
        assertEquals(2, ExceptionRebuilder.describe(a).count(), "each exception of a cycle once");
    }

    @Test
    void aNullMessageStaysNull() {
        Throwable t = across(new IllegalArgumentException((String) null), PLAIN);
        assertNull(t.getMessage());
    }

    @Test
    void anEmptyThrownIsAProtocolFailure() {
        MemorySegment m = MemorySegment.ofArray(new byte[HEADER]);
        putHeader(m, head(THROWN, 0, 0, 0), 1, 0, 0);
        RemoteException e = assertInstanceOf(RemoteException.class, ExceptionRebuilder.rebuild(m, PLAIN));
        assertEquals(RemoteException.Reason.PROTOCOL, e.reason());
    }

    @Test
    void aThrownWhoseValuesOverrunTheMessageIsRefused() {
        MemorySegment m = MemorySegment.ofArray(new byte[HEADER + 8]);
        putHeader(m, head(THROWN, 0, 1, 0), 1, 0, 0);
        putValueHeader(m, HEADER, T_BYTES, 100);
        assertThrows(RuntimeException.class, () -> ExceptionRebuilder.rebuild(m, PLAIN));
    }
}
