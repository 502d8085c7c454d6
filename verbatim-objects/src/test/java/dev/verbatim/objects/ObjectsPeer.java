package dev.verbatim.objects;

/** A base in a child process: listens, binds two stores, a guard and a desk, allows cells and itself (for its probe), until killed. */
public final class ObjectsPeer {
    private ObjectsPeer() {}

    private static volatile Base base;

    /** Messages this child's base received so far (called remotely, as a static method, to count). */
    public static long received() {
        return base.messagesReceived();
    }

    public static void main(String[] args) throws Exception {
        base = Base.listen(args[0]);
        base.bind("store", new Fixtures.Store());
        base.bind("store2", new Fixtures.Store());
        base.bind("guard", new Fixtures.Guard());
        base.bind("desk", new Fixtures.DeskImpl());
        base.allow(Fixtures.Cell.class, ObjectsPeer.class);
        System.out.println("READY " + base.id().incarnation() + " " + base.addresses().getFirst());
        System.out.flush();
        Thread.sleep(120_000); // the test kills it before
        base.close();
    }
}
