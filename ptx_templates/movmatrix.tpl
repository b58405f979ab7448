# movmatrix: transpose an m8n8 b16 fragment inside a warp's registers
MOVMATRIX_T_B16            7.8 all  movmatrix.sync.aligned.m8n8.trans.b16 $0, $1;
