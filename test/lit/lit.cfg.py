# lit configuration for mxc's FileCheck tests.
#   python3 /usr/lib/llvm-14/build/utils/lit/lit.py -sv --param mxc=$PWD/build/mxc test/lit
import os

import lit.formats

config.name = 'mxc'
config.test_format = lit.formats.ShTest(True)
config.suffixes = ['.mxir', '.test']
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
config.excludes = ['Inputs', 'lit.cfg.py']

mxc = lit_config.params.get('mxc') or os.environ.get('MXC') or \
    os.path.join(config.test_source_root, '..', '..', 'build', 'mxc')
mxc = os.path.abspath(mxc)
if not os.path.isfile(mxc):
    lit_config.fatal('mxc not found at %s (pass --param mxc=/path/to/build/mxc or set MXC)' % mxc)

# Outputs (%t) go next to the binary, not into the source tree.
config.test_exec_root = os.path.join(os.path.dirname(mxc), 'lit-output')

llvm_bin = '/usr/lib/llvm-14/bin'
config.substitutions.append(('%mxc', mxc))
config.substitutions.append((r'(?<![\w/.-])FileCheck(?![\w-])', os.path.join(llvm_bin, 'FileCheck')))
config.substitutions.append((r'(?<![\w/.-])not(?![\w-])', os.path.join(llvm_bin, 'not')))

# The GPU compilers, for the tests that build (never run) hip libraries for a GPU.
import shutil
if os.path.exists('/usr/local/cuda/bin/nvcc') or shutil.which('nvcc'):
    config.available_features.add('nvcc')
if shutil.which('clang++-15'):
    config.available_features.add('hip-clang')
