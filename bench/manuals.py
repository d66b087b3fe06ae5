"""Manuals none of the sets were tuned on, fetched from Debian's documentation packages.

`bench/data/manuals_blind.jsonl` asks about five of them: a language definition, a FAQ, a
modeling language's reference, a plotting program's manual and a system administrator's
guide; `bench/data/manuals_blind2.jsonl` about four more: a graphics language's manual, a C
library's reference, an installation guide and a data import guide;
`bench/data/manuals_blind3.jsonl` about seven more: a project's history, a tutorial's slides,
a paper, a numerical library's guide, a language reference, a FAQ and a tool's guide;
`bench/data/manuals_blind4.jsonl` about five more: an R package's vignette, a man page, a
program's user manual, a file format's specification and a coding style guideline;
`bench/data/manuals_blind5.jsonl` about five more: a LaTeX package's documentation with
option tables, a statistics paper with tables of fitted models, a journal article with a
table of presets and test results, a program's release notes and an essay with a licence
appended; `bench/data/manuals_blind6.jsonl` about five more: LaTeX's guide to font selection
with tables of font attributes and sizes, a graph-automorphism library's user's guide, a stub
generator's manual with tables of attributes and type mappings, a printer driver suite's user's
manual and a sequence-comparison package's guide with tables of programs and compile options.
They are not in `../shared/corpus`; `fetch_manuals` downloads each package with
`apt-get download` (its pinned version), takes the PDF out with `dpkg-deb`, and checks it
against its recorded digest, so every run reads the same bytes.

Run alone, it fetches them: `python -m bench.manuals`.
"""

from __future__ import annotations

import hashlib
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

MANUALS = Path(__file__).resolve().parent / "manuals"
"""Where the fetched PDFs are kept (ignored by git)."""


@dataclass(frozen=True)
class Manual:
    package: str
    version: str
    member: str
    """The PDF's path inside the package."""
    sha256: str

    @property
    def name(self) -> str:
        return Path(self.member).name


SOURCES = (
    Manual(
        "r-doc-pdf", "4.2.2.20221110-2", "./usr/share/R/doc/manual/R-lang.pdf",
        "4a6120ba505021d7c208078b575fe3f5d5dc91636dcf17de8a4208adda90d7dc",
    ),
    Manual(
        "r-doc-pdf", "4.2.2.20221110-2", "./usr/share/R/doc/manual/R-FAQ.pdf",
        "de8768520d4fb90dad64c28483ffb92dca7dd9d8dc8556905b35c2e62a939255",
    ),
    Manual(
        "glpk-doc", "5.0-1", "./usr/share/doc/glpk-doc/gmpl.pdf",
        "df54ba811d1fe3c041447b575997298d63b0a6366e39454ef2efc382f08203c2",
    ),
    Manual(
        "gnuplot-doc", "5.4.4+dfsg1-2", "./usr/share/doc/gnuplot/gnuplot.pdf",
        "df68dd0613f043141512fc4436d17aaf96727d5a758d85233915ac5056a97206",
    ),
    Manual(
        "debian-reference-en", "2.100", "./usr/share/debian-reference/debian-reference.en.pdf",
        "32775deeca0770ac25282b0c894cbaae83f4dd4ab00e891b94e8f009c0366728",
    ),
    Manual(
        "asymptote-doc", "2.85+ds-1", "./usr/share/doc/asymptote/asymptote.pdf",
        "e17165321f74a5ec1b884cf20773cc43361df8f7fc707b071debf4ef707de051",
    ),
    Manual(
        "glpk-doc", "5.0-1", "./usr/share/doc/glpk-doc/glpk.pdf",
        "002d0328518a17b58919a2860b7f72d52594a73008f72c85f0dd70dfa138250f",
    ),
    Manual(
        "r-doc-pdf", "4.2.2.20221110-2", "./usr/share/R/doc/manual/R-admin.pdf",
        "50e256b5f873bbee4c8482df3754fa8654f02ef693409fe5e30b2f114e3efe9f",
    ),
    Manual(
        "r-doc-pdf", "4.2.2.20221110-2", "./usr/share/R/doc/manual/R-data.pdf",
        "9381a39ffeb8545a745c2618ba955b4ae4e10b9c8373cd5bc1984fff8318f8ca",
    ),
    Manual(
        "debian-history", "2.28", "./usr/share/doc/debian-history/docs/project-history.en.pdf",
        "d3d263affc69ec9c994fe1d06b3cf7dddb78f84e24849d87a4aefe3a4ed15e77",
    ),
    Manual(
        "packaging-tutorial", "0.29", "./usr/share/doc/packaging-tutorial/packaging-tutorial.pdf",
        "cc7c8684cf47b66bbec047f2a0d074e5a326848d8f9de8ab17daa19759e801ae",
    ),
    Manual(
        "cvs", "2:1.12.13+real-28+deb12u1", "./usr/share/doc/cvs/cvs-paper.pdf",
        "9086459bcb0017286416a9e24b606b556ecb33320b8ae94e75c3196399d2cdc1",
    ),
    Manual(
        "libsuitesparse-doc", "1:5.12.0+dfsg-2",
        "./usr/share/doc/libsuitesparse-dev/KLU_UserGuide.pdf",
        "34103e8b5ed1e7957187a698cad35af78fbf271b7ca209226d65833baecd563a",
    ),
    Manual(
        "systemtap-doc", "4.8-2", "./usr/share/doc/systemtap-doc/langref.pdf",
        "c5651bc5a9dafd2557747cf86ced7fa425a390a942697ff432215931c42b8d42",
    ),
    Manual(
        "nut-doc", "2.8.0-7", "./usr/share/doc/nut-doc/pdf/FAQ.pdf",
        "e9408591b24d5576e65869daacad37878c059d6863186c12cc6f8f88eac0e9c7",
    ),
    Manual(
        "blktrace", "1.2.0-5", "./usr/share/doc/blktrace/btt.pdf",
        "9960dee2fac9e3d09efdffbe0b3ed5bdddbc087d23d209cc900c6aa54de681b4",
    ),
    Manual(
        "r-cran-boolnet", "2.1.7-1",
        "./usr/lib/R/site-library/BoolNet/doc/BoolNet_package_vignette.pdf",
        "a407dacf17c22a7142ea7d55b1e18f2454886c52cd6455e2beca31efc0cf863b",
    ),
    Manual(
        "bash-doc", "5.2.15-2", "./usr/share/doc/bash-doc/bash.pdf",
        "ebd1361fe662e7e6b7386da02986bda05a434f85667939f72356fa86de19dd6d",
    ),
    Manual(
        "king", "2.24+dfsg2-1", "./usr/share/doc/king/king-manual.pdf",
        "f898ffb90f80a56bc25486a1573593c5b23f0260958a2c92b303f3153000be05",
    ),
    Manual(
        "king", "2.24+dfsg2-1", "./usr/share/doc/king/format-kinemage.pdf",
        "f34b39914738977269ec285c4326aa06b1b7fe0ca2f0567f4b4e20eec1960b41",
    ),
    Manual(
        "slurm-wlm-doc", "22.05.8-4+deb12u3", "./usr/share/doc/slurm-wlm/html/coding_style.pdf",
        "ea87a27653147d35c6efe771267b27c6652056b66cf3fec7eb85a32642d66236",
    ),
    Manual(
        "texlive-latex-recommended-doc", "2022.20230122-3",
        "./usr/share/doc/texlive-doc/latex/xcolor/xcolor.pdf",
        "d354360b1216cf8c9618571434a34e9e7683c2cec426e6156b4c5fb80af49e41",
    ),
    Manual(
        "r-cran-pscl", "1.5.5-1+b1", "./usr/lib/R/site-library/pscl/doc/countreg.pdf",
        "8ff9cb8331837ff2d21c4a840efbe4e5bdc10a1008edc0c39b8ba47d145cea04",
    ),
    Manual(
        "texlive-luatex", "2022.20230122-3",
        "./usr/share/doc/texlive-doc/luatex/lua-widow-control/tb133chernoff-widows.pdf",
        "ee78cfb7c00252c0835535de25f8786936689083bfb2e525ad95f9b4df776832",
    ),
    Manual(
        "lilypond-doc-pdf", "2.24.1-2",
        "./usr/share/doc/lilypond/html/Documentation/changes.pdf",
        "b8b7ed4102dc5732247dc3fad2cdc957f5294be5f703c8dbb8825cd8a64e7995",
    ),
    Manual(
        "lilypond-doc-pdf", "2.24.1-2",
        "./usr/share/doc/lilypond/html/Documentation/essay.pdf",
        "4ad40da338b45eba8f89a3356e12bb5c5c43c5557e0bca2daa6335061e4513b5",
    ),
    Manual(
        "texlive-latex-base-doc", "2022.20230122-3",
        "./usr/share/doc/texlive-doc/latex/base/fntguide.pdf",
        "fb1b5ecbdf1a1b39698896ac567c0525f65de2202107b504f5c0dc76e5e69be4",
    ),
    Manual(
        "nauty-doc", "2.8.6+ds-2", "./usr/share/doc/nauty/nug28.pdf",
        "3ba8c8723a163283db7cd4ca583d33573b4194b07c9b6fa71c92ed95cd4a70e5",
    ),
    Manual(
        "camlidl-doc", "1.04-5", "./usr/share/doc/camlidl/camlidl-1.04.doc.pdf",
        "29df28a0ebbf3677ccc1b20ff36cf66a0a2b32ca61525f48df6da7f31c600e6f",
    ),
    Manual(
        "gutenprint-doc", "5.3.4.20220624T01008808d602-1",
        "./usr/share/doc/gutenprint-doc/gutenprint-users-manual.pdf",
        "e9f4a85ecce576c1dcbb9236e710d0e1256c0f5642bb06ad91251b15410194d8",
    ),
    Manual(
        "fasta3-doc", "36.3.8i.14-Nov-2020-1", "./usr/share/doc/fasta3/fasta_guide.pdf",
        "e0cbb13bf2f0cfe3c85e846634ed41c5a3011c50ef6333ef229f9d7978ffaf82",
    ),
)  # fmt: skip


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fetch_manuals(folder: Path = MANUALS) -> list[Path]:
    """Returns the manuals' paths in `folder`, downloading and extracting those not there yet.

    Raises RuntimeError when a package cannot be downloaded or a PDF is not the one recorded.
    """
    folder.mkdir(parents=True, exist_ok=True)
    missing = [manual for manual in SOURCES if not (folder / manual.name).exists()]
    packages = sorted({(manual.package, manual.version) for manual in missing})
    with tempfile.TemporaryDirectory() as scratch:
        for package, version in packages:
            download = subprocess.run(
                ["apt-get", "download", f"{package}={version}"],
                cwd=scratch, capture_output=True, text=True, check=False,
            )  # fmt: skip
            if download.returncode != 0:
                raise RuntimeError(
                    f"apt-get download {package}={version} failed (run apt-get update first?): "
                    f"{download.stderr.strip()}"
                )
            [deb] = Path(scratch).glob(f"{package}_*.deb")
            unpacked = Path(scratch) / package
            subprocess.run(["dpkg-deb", "-x", str(deb), str(unpacked)], check=True)
            for manual in missing:
                if manual.package == package:
                    (folder / manual.name).write_bytes((unpacked / manual.member).read_bytes())
    for manual in SOURCES:
        if digest(folder / manual.name) != manual.sha256:
            raise RuntimeError(f"{manual.name} is not the PDF recorded: delete it and fetch again")
    return [folder / manual.name for manual in SOURCES]


if __name__ == "__main__":
    for path in fetch_manuals():
        print(path)
