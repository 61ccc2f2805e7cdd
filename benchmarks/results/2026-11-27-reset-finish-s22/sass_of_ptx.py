import sys, re
sys.path.insert(0, "tools")
from cuda.bindings import nvjitlink
import gpu_model as G
for name in sys.argv[1:]:
    ptx = open(name).read().encode()
    opts = ["-arch=sm_90a"]
    h = nvjitlink.create(len(opts), opts)
    nvjitlink.add_data(h, nvjitlink.InputType.PTX, ptx, len(ptx), "m")
    nvjitlink.complete(h)
    cubin = bytearray(nvjitlink.get_linked_cubin_size(h)); nvjitlink.get_linked_cubin(h, cubin)
    sass = G.disassemble(bytes(cubin))
    open(name.replace(".ptx", ".sass"), "w").write(sass)
    # longest run of loads with no branch between them, and loads per basic block
    runs, run = [], 0
    for line in sass.splitlines():
        if "LDG" in line: run += 1
        elif re.search(r"\bBRA\b|\bEXIT\b", line):
            runs.append(run); run = 0
    print(name, "LDG", sass.count("LDG"), "BRA", len(re.findall(r"\bBRA\b", sass)), "largest LDG group between branches", max(runs))
