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

    /** {@code t} as the caller receives it from an export that sends details: a THROWN message, rebuilt for {@code mi}. */
    private static Throwable across(Throwable t, RemoteInterface.MethodInfo mi) {
        return across(t, mi, true);
    }

    /** {@code t} thrown by a call of {@code mi} as the caller receives it, from an export sending {@code details} or not. */
    private static Throwable across(Throwable t, RemoteInterface.MethodInfo mi, boolean details) {
        ExceptionRebuilder.Described d = ExceptionRebuilder.describe(t, mi, details);
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
        assertEquals(16, ExceptionRebuilder.describe(t, PLAIN, true).count());
        int depth = 0;
        for (Throwable c = across(t, PLAIN); c != null; c = c.getCause()) {
            depth++;
        }
        assertEquals(16, depth);
        IllegalStateException a = new IllegalStateException("a");
        IllegalStateException b = new IllegalStateException("b", a);
        a.initCause(b);
        assertEquals(2, ExceptionRebuilder.describe(a, PLAIN, true).count(), "each exception of a cycle once");
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

    // ------------------------------------------------------------------ what an export discloses by default

    @Test
    void byDefaultAnUndeclaredExceptionNamesNeitherItsClassNorItsMessage() {
        Throwable t = across(new Parts.Undeclared("password=hunter2 at /srv/db"), PLAIN, false);
        ServerException s = assertInstanceOf(ServerException.class, t);
        assertEquals(ServerException.UNDISCLOSED, s.remoteClass());
        assertFalse(s.getMessage().contains("hunter2"), s.getMessage());
        assertFalse(s.getMessage().contains(Parts.Undeclared.class.getName()), s.getMessage());
        assertTrue(s.getMessage().contains("withErrorDetails"), "it says how to get the details: " + s.getMessage());
        assertNull(s.getCause());
    }

    @Test
    void byDefaultAnUndeclaredJdkExceptionKeepsItsClassButNotItsMessageOrCause() {
        Throwable t = across(new IllegalStateException("row 42 of users locked", new Parts.Undeclared("inner")), PLAIN,
                false);
        assertEquals(IllegalStateException.class, t.getClass());
        assertFalse(t.getMessage().contains("row 42"), t.getMessage());
        assertNull(t.getCause(), "no cause class name leaves the server");
        Throwable sub = across(new java.io.UncheckedIOException(new java.io.IOException("/secret/path")), PLAIN, false);
        assertInstanceOf(ServerException.class, sub, "a subclass of RuntimeException only: nothing to stand for it");
        assertFalse(sub.getMessage().contains("/secret/path"), sub.getMessage());
    }

    @Test
    void byDefaultADeclaredExceptionKeepsItsMessageAndOnlyItsDeclaredCauses() {
        Parts.Declared outer = new Parts.Declared("no such file");
        outer.initCause(new Parts.Special("deeper, declared", new Parts.Undeclared("jdbc:postgresql://10.0.0.5")));
        Throwable r = across(outer, OPEN, false);
        assertEquals(Parts.Declared.class, r.getClass());
        assertEquals("no such file", r.getMessage(), "what the caller's contract needs");
        assertEquals(Parts.Declared.class, r.getCause().getClass());
        assertEquals(Parts.Special.class.getName() + ": deeper, declared", r.getCause().getMessage());
        assertNull(r.getCause().getCause(), "the chain ends at the first undeclared cause");
        assertEquals(Parts.Special.class.getName() + ": deep", across(new Parts.Special("deep"), OPEN, false).getMessage(),
                "a subclass of a declared exception is declared");
    }
}
