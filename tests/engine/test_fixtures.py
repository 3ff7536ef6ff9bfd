"""lessonkit.fixtures: the `ref` fixture a conftest makes of its names, and parametrized cases
whose ids name their values (check ids learners read, kept in the golden reports)."""
import textwrap

from lessonkit.fixtures import cases

pytest_plugins = ["pytester"]


def ids_of(mark) -> list[str]:
    return list(mark.kwargs["ids"])


def test_case_ids_name_every_value_in_order():
    mark = cases("T,V,n", [(5, 6, 1), (7, 12, 3)])
    assert mark.args == ("T,V,n", [(5, 6, 1), (7, 12, 3)])
    assert ids_of(mark) == ["T=5 V=6 n=1", "T=7 V=12 n=3"]


def test_case_ids_show_only_the_named_parameters():
    mark = cases("V,D,T,n", [(6, 3, 5, 1), (16, 2, 16, 16)], shown="V,n")
    assert ids_of(mark) == ["V=6 n=1", "V=16 n=16"]


def test_a_single_parameter_takes_plain_values():
    assert ids_of(cases("n", [1, 4])) == ["n=1", "n=4"]


def test_ref_gives_the_conftests_names_defined_after_it(pytester):
    pytester.makeconftest(textwrap.dedent("""
        from lessonkit.fixtures import ref_fixture
        ref = ref_fixture(globals())

        def loss(x):
            return 2 * x
    """))
    pytester.makepyfile(textwrap.dedent("""
        from lessonkit.fixtures import cases

        @cases("x,want", [(1, 2), (3, 6)])
        def test_loss(ref, x, want):
            assert ref.loss(x) == want
    """))
    result = pytester.runpytest("-v", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*test_loss?x=1 want=2? PASSED*", "*test_loss?x=3 want=6? PASSED*"])


def test_ref_takes_another_name(pytester):
    pytester.makeconftest(textwrap.dedent("""
        from lessonkit.fixtures import ref_fixture
        model = ref_fixture(globals(), name="model")
        GB = 1e9
    """))
    pytester.makepyfile("def test_units(model):\n    assert model.GB == 1e9\n")
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)
