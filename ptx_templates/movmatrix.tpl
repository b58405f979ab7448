# movmatrix: transpose an m8n8 b16 fragment inside a warp's registers
MOVMATRIX_T_B16            7.8 all      shape=m8n8 trans=1 bits=16 regs=1            movmatrix.sync.aligned.m8n8.trans.b16 $0:r32, $1:r32/imm;
