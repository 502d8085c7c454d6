package dev.verbatim.cli.demo.objects;

import dev.verbatim.objects.Base;

/**
 * A base process of {@code ./verbatim demo --objects}: listens at its address, allows list elements and
 * cells to be constructed there (and copied in), binds its station and guard, prints
 * {@code READY incarnation address}, and runs until its standard input closes (so it never outlives the
 * demo) or it is killed.
 */
public final class DemoBase {
    private DemoBase() {}

    public static void main(String[] args) throws Exception {
        try (Base base = Base.listen(args[0])) {
            base.allow(DemoObjects.Element.class, DemoObjects.Cell.class);
            base.bind("station", new DemoObjects.StationImpl(base));
            base.bind("guard", new DemoObjects.Guard());
            System.out.println("READY " + base.id().incarnation() + " " + base.addresses().getFirst());
            System.out.flush();
            while (System.in.read() >= 0) {
                // until the demo closes our standard input (or dies)
            }
        }
        System.exit(0);
    }
}
